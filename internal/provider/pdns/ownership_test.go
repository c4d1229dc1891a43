package pdns

import (
	"reflect"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// Records that were in the zone before zonekeeper — without an ownership TXT, or with another
// owner's — are never changed through the TXT registry and the plan, under sync, even when an object
// asks for their names or goes away; zonekeeper's own records are created, updated and deleted beside
// them. Two rounds: the second must plan nothing for the foreign names either.
func TestPreExistingRecordsNeverChangedThroughRegistry(t *testing.T) {
	s := startServer(t)
	foreignTXT := `"\"heritage=external-dns,external-dns/owner=someone-else,external-dns/resource=service/default/foreign\""`
	s.seed(t, "example.com", "manual.example.com", "A", 3600, "10.8.8.8")
	s.seed(t, "example.com", "foreign.example.com", "A", 300, "10.9.9.9")
	s.seed(t, "example.com", "a-foreign.example.com", "TXT", 300, foreignTXT)
	s.seed(t, "example.com", "legacy.example.com", "CNAME", 300, "elsewhere.example.net.")
	before := s.rrsets(t, "example.com")

	reg, err := txt.New(s.p, txt.Config{OwnerID: "zk"})
	if err != nil {
		t.Fatal(err)
	}
	desired := func(ip string) []*endpoint.Endpoint {
		return []*endpoint.Endpoint{
			// Names held by others: the plan must drop these.
			endpoint.NewWithTTL("manual.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "ingress/default/grab"),
			endpoint.NewWithTTL("foreign.example.com", endpoint.RecordTypeA, 300, "10.0.0.2").WithLabel(endpoint.ResourceLabelKey, "ingress/default/grab"),
			endpoint.NewWithTTL("legacy.example.com", endpoint.RecordTypeA, 300, "10.0.0.3").WithLabel(endpoint.ResourceLabelKey, "ingress/default/grab"),
			// Ours.
			endpoint.NewWithTTL("mine.example.com", endpoint.RecordTypeA, 300, ip).WithLabel(endpoint.ResourceLabelKey, "ingress/default/mine"),
		}
	}
	round := func(eps []*endpoint.Endpoint) *plan.Changes {
		t.Helper()
		current, err := reg.Records(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		res := plan.Calculate(plan.Input{Desired: eps, Current: current, OwnerID: "zk", Policy: plan.PolicySync})
		if err := reg.ApplyChanges(ctxT(t), res.Changes); err != nil {
			t.Fatal(err)
		}
		return res.Changes
	}
	expectMine := func(ip string) {
		t.Helper()
		now := s.rrsets(t, "example.com")
		if r := now["mine.example.com A"]; len(r.Records) != 1 || r.Records[0].Content != ip {
			t.Fatalf("mine.example.com A = %+v, want %s", r, ip)
		}
		if _, there := now["a-mine.example.com TXT"]; !there {
			t.Fatal("ownership TXT a-mine.example.com not written")
		}
	}
	round(desired("10.1.1.1"))
	expectMine("10.1.1.1")
	round(desired("10.1.1.2")) // update ours
	expectMine("10.1.1.2")
	round(nil) // every object gone: delete ours only
	if c := round(nil); c.HasChanges() {
		t.Fatalf("not in sync after deleting: %+v", c)
	}
	after := s.rrsets(t, "example.com")
	for _, k := range []string{"manual.example.com A", "foreign.example.com A", "a-foreign.example.com TXT", "legacy.example.com CNAME"} {
		if !reflect.DeepEqual(before[k], after[k]) {
			t.Errorf("%s changed: %+v → %+v", k, before[k], after[k])
		}
	}
	for _, k := range []string{"mine.example.com A", "a-mine.example.com TXT"} {
		if _, there := after[k]; there {
			t.Errorf("%s not deleted", k)
		}
	}
	if len(after) != len(before) {
		t.Errorf("zone has %d rrsets, had %d before: %v", len(after), len(before), after)
	}
}
