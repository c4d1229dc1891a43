package provider

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func TestOwnershipGroups(t *testing.T) {
	owned := func(name, record string) *endpoint.Endpoint {
		return endpoint.New(name, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=o,external-dns/resource=ingress/default/web"`).
			WithLabel(endpoint.OwnedRecordLabelKey, record)
	}
	eps := []*endpoint.Endpoint{
		endpoint.New("www.example.com", endpoint.RecordTypeA, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "ingress/default/web"),
		endpoint.New("api.example.com", endpoint.RecordTypeA, "192.0.2.2"),
		owned("a-www.example.com", "WWW.example.com."), // labelled: joins www
		endpoint.New("www.example.com", endpoint.RecordTypeAAAA, "2001:db8::1"),
		// A TXT being deleted, read from a listing without labels: joins by its value and name.
		endpoint.New("cname-www.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=o,external-dns/resource=ingress/default/web"`),
		// Names the resource, but its name does not contain the record's first label.
		endpoint.New("other.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=o,external-dns/resource=ingress/default/web"`),
	}
	names := make([]string, len(eps))
	for i, e := range eps {
		names[i] = e.DNSName
	}
	got := fmt.Sprint(OwnershipGroups(names, eps))
	if want := "[0 1 0 0 0 2]"; got != want {
		t.Errorf("groups = %s, want %s", got, want)
	}
}
