package pdns

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// A zone laid out as external-dns's pdns provider writes it — ownership TXT content as the registry
// value itself ("heritage=…" as one quoted string), a CNAME written as ALIAS — is taken over with no
// change at all; when the ALIAS's target changes, it becomes a CNAME in one PATCH.
func TestZoneWrittenByExternalDNSTakenOver(t *testing.T) {
	s := startServer(t)
	own := func(res string) string {
		return `"heritage=external-dns,external-dns/owner=zk,external-dns/resource=` + res + `"`
	}
	s.seed(t, "example.com", "www.example.com", "A", 300, "10.0.0.1")
	s.seed(t, "example.com", "a-www.example.com", "TXT", 300, own("ingress/default/www"))
	s.seed(t, "example.com", "app.example.com", "ALIAS", 300, "lb.example.net.")
	s.seed(t, "example.com", "cname-app.example.com", "TXT", 300, own("ingress/default/app"))
	before := s.rrsets(t, "example.com")

	reg, err := txt.New(s.p, txt.Config{OwnerID: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	desired := func(appTarget string) []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "ingress/default/www"),
			endpoint.NewWithTTL("app.example.com", endpoint.RecordTypeCNAME, 300, appTarget).WithLabel(endpoint.ResourceLabelKey, "ingress/default/app"),
		}
	}
	current, err := reg.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Calculate(plan.Input{Desired: desired("lb.example.net"), Current: current, OwnerID: "zk", Policy: plan.PolicySync})
	if res.Changes.HasChanges() || len(res.OwnerMismatches) > 0 {
		t.Fatalf("taking over external-dns's zone plans changes: %+v %+v", res.Changes, res.OwnerMismatches)
	}

	res = plan.Calculate(plan.Input{Desired: desired("lb2.example.net"), Current: current, OwnerID: "zk", Policy: plan.PolicySync})
	if err := reg.ApplyChanges(ctxT(t), res.Changes); err != nil {
		t.Fatal(err)
	}
	after := s.rrsets(t, "example.com")
	if _, there := after["app.example.com ALIAS"]; there {
		t.Error("the ALIAS is still there beside the new CNAME")
	}
	if c := after["app.example.com CNAME"]; len(c.Records) != 1 || c.Records[0].Content != "lb2.example.net." {
		t.Errorf("app.example.com CNAME = %+v", c)
	}
	if !equalRRset(before["www.example.com A"], after["www.example.com A"]) || !equalRRset(before["a-www.example.com TXT"], after["a-www.example.com TXT"]) {
		t.Error("an unchanged record set was rewritten")
	}
}

func equalRRset(a, b rrset) bool {
	if a.Name != b.Name || a.Type != b.Type || a.TTL != b.TTL || len(a.Records) != len(b.Records) {
		return false
	}
	for i := range a.Records {
		if a.Records[i] != b.Records[i] {
			return false
		}
	}
	return true
}
