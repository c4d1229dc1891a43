package aws

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// external-dns's --aws-zone-match-parent is always on: --domain-filter=app.example.com manages that part
// of the hosted zone example.com (records go into the parent zone), and a zone that neither contains
// nor lies inside the filter is left alone.
func TestDomainFilterSelectsTheParentZone(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"}, route53emu.SeedZone{Name: "example.org"})
	p := newProvider(t, url, Config{DomainFilter: []string{"app.example.com"}})
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("web.app.example.com", endpoint.RecordTypeA, 60, "192.0.2.1"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := dump(srv, "example.com.")["web.app.example.com. A "]; !ok {
		t.Fatalf("web.app.example.com not written into the parent zone: %v", dump(srv, "example.com."))
	}
	err = p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("www.example.org", endpoint.RecordTypeA, 60, "192.0.2.2"),
	}})
	if _, ok := dump(srv, "example.org.")["www.example.org. A "]; ok || err == nil {
		t.Fatalf("a zone outside the filter was written (err %v)", err)
	}
}
