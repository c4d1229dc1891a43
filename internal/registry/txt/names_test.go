package txt

import (
	"context"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// The cache keeps the record sets at one name together (state.entries). With several at a name (set
// identifiers, an ordinary TXT beside the records) every write that takes out the first, a middle or
// the last of them, or adds one, must leave the cache folding what a fresh registry folds, and a lookup
// by the name (RecordsNamed) finding exactly the records at it.
func TestRecordSetsAtOneNameFollowWrites(t *testing.T) {
	mem, _ := newZone()
	const name = "multi.example.com"
	set := func(id, target string) *endpoint.Endpoint {
		e := endpoint.New(name, endpoint.RecordTypeA, target)
		e.SetIdentifier = id
		return e
	}
	own := func(id string) *endpoint.Endpoint {
		e := txtRecord("a-"+name, `"heritage=external-dns,external-dns/owner=me,external-dns/resource=ingress/default/`+id+`"`)
		e.SetIdentifier = id
		return e
	}
	seed(t, mem, set("one", "192.0.2.1"), own("one"), txtRecord(name, `"hello"`), set("two", "192.0.2.2"), own("two"),
		set("three", "192.0.2.3"), own("three"), endpoint.New("other.example.com", endpoint.RecordTypeA, "192.0.2.9"))
	cfg := Config{OwnerID: "me", CacheInterval: time.Hour}
	r := mustNew(t, mem, cfg)
	ctx := context.Background()
	current := func(id string) *endpoint.Endpoint {
		t.Helper()
		for _, e := range mustRecords(t, r) {
			if e.DNSName == name && e.RecordType == endpoint.RecordTypeA && e.SetIdentifier == id {
				return e
			}
		}
		t.Fatalf("no record set %q at %s", id, name)
		return nil
	}
	apply := func(step string, c *plan.Changes) {
		t.Helper()
		if err := r.ApplyChanges(ctx, c); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		cacheFoldsFresh(t, r, mem, cfg, step, name)
	}
	mustRecords(t, r)
	cacheFoldsFresh(t, r, mem, cfg, "listed", name)
	apply("a middle one deleted", &plan.Changes{Delete: []*endpoint.Endpoint{current("two")}})
	apply("one added", &plan.Changes{Create: []*endpoint.Endpoint{
		set("four", "192.0.2.4").WithLabel(endpoint.ResourceLabelKey, "ingress/default/four")}})
	apply("the first deleted", &plan.Changes{Delete: []*endpoint.Endpoint{current("one")}})
	nu := current("four").DeepCopy()
	nu.Targets = endpoint.Targets{"192.0.2.44"}
	apply("the last updated", &plan.Changes{UpdateOld: []*endpoint.Endpoint{current("four")}, UpdateNew: []*endpoint.Endpoint{nu}})
	apply("the last deleted", &plan.Changes{Delete: []*endpoint.Endpoint{current("four")}})
	apply("the rest deleted", &plan.Changes{Delete: []*endpoint.Endpoint{current("three")}})
	r.mu.Lock()
	r.state.remove(txtRecord(name, `"hello"`)) // the ordinary TXT goes too (as a write by hand would be patched)
	r.mu.Unlock()
	if eps, _, _, ok := r.RecordsNamed([]string{name}); !ok || len(eps) != 0 {
		t.Errorf("with nothing left at the name a lookup finds %v (ok %v)", eps, ok)
	}
}
