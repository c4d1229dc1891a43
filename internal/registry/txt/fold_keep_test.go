package txt

import (
	"context"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// An entry keeps the memo's record instead of the listed one when the record had no labels of its
// own (foldEntry). Folding it again must give what a fresh fold of the provider's records gives, in
// every field, when its ownership changes under it: a legacy TXT replaced by a new-format one (the
// forced-update property goes), its TXT deleted (it is nobody's: no labels, no property), a TXT
// written for it again, its targets updated; and a record with labels or properties of its own keeps
// them through all of it.
func TestFoldAgainOfAKeptRecordEqualsAFreshFold(t *testing.T) {
	mem, _ := newZone()
	own := func(resource string) string {
		return `"heritage=external-dns,external-dns/owner=me,external-dns/resource=` + resource + `,external-dns/team=blue"`
	}
	labelled := endpoint.New("lab.example.com", endpoint.RecordTypeA, "192.0.2.3").WithLabel("zone-note", "kept")
	labelled.SetProviderSpecific("alias", "false")
	seed(t, mem,
		endpoint.New("legacy.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		txtRecord("legacy.example.com", own("ingress/default/legacy")),
		endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.2"),
		txtRecord("a-web.example.com", own("ingress/default/web")),
		labelled,
		txtRecord("a-lab.example.com", own("ingress/default/lab")),
		txtRecord("note.example.com", `"hello"`))
	cfg := Config{OwnerID: "me", CacheInterval: time.Hour}
	r := mustNew(t, mem, cfg)
	ctx := context.Background()
	if _, _, _, err := r.SharedRecordsWithGeneration(ctx); err != nil {
		t.Fatal(err)
	}
	cacheFoldsFresh(t, r, mem, cfg, "folded once")
	r.mu.RLock()
	for _, name := range []string{"legacy.example.com", "web.example.com"} {
		k := cacheKey(name, endpoint.RecordTypeA, "")
		if en := r.state.entry(k); en.ep != en.folded {
			t.Errorf("%s: the entry keeps the listed record beside the memo's", name)
		}
	}
	r.mu.RUnlock()

	// Each change is written to the provider, then into the cache as ApplyChanges patches it.
	write := func(step string, sent ...*sentChange) {
		t.Helper()
		c := &plan.Changes{}
		for _, s := range sent {
			switch s.action {
			case provider.ActionCreate:
				c.Create = append(c.Create, s.ep)
			case provider.ActionUpdate:
				c.UpdateOld, c.UpdateNew = append(c.UpdateOld, s.old), append(c.UpdateNew, s.ep)
			case provider.ActionDelete:
				c.Delete = append(c.Delete, s.ep)
			}
		}
		if err := mem.ApplyChanges(ctx, c); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		r.patch(r.state, sent)
		cacheFoldsFresh(t, r, mem, cfg, step)
	}
	write("new-format TXT beside the legacy one",
		&sentChange{action: provider.ActionCreate, ep: txtRecord("a-legacy.example.com", own("ingress/default/legacy"))})
	write("TXT deleted",
		&sentChange{action: provider.ActionDelete, ep: txtRecord("a-web.example.com", own("ingress/default/web"))})
	write("TXT written again for another object",
		&sentChange{action: provider.ActionCreate, ep: txtRecord("a-web.example.com", own("ingress/default/web2"))})
	write("targets updated",
		&sentChange{action: provider.ActionUpdate, old: endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.2"),
			ep: endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.9")})
	write("labelled record's TXT deleted",
		&sentChange{action: provider.ActionDelete, ep: txtRecord("a-lab.example.com", own("ingress/default/lab"))})
	// A TXT record rewritten into an ownership value leaves the records (and a lookup by name), and
	// comes back when rewritten again.
	write("TXT record turned into an ownership value",
		&sentChange{action: provider.ActionUpdate, old: txtRecord("note.example.com", `"hello"`), ep: txtRecord("note.example.com", own("ingress/default/note"))})
	if eps, _, _, ok := r.RecordsNamed([]string{"note.example.com"}); !ok || len(eps) != 0 {
		t.Errorf("a lookup by name finds %v (ok %v), an ownership TXT", eps, ok)
	}
	write("ownership value turned back into a TXT record",
		&sentChange{action: provider.ActionUpdate, old: txtRecord("note.example.com", own("ingress/default/note")), ep: txtRecord("note.example.com", `"hello again"`)})
	// The same, with the new value put straight over the entry (no remove first, as a patch does).
	if err := mem.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{txtRecord("note.example.com", `"hello again"`)},
		UpdateNew: []*endpoint.Endpoint{txtRecord("note.example.com", own("ingress/default/note"))}}); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	r.state.put(txtRecord("note.example.com", own("ingress/default/note")), r.codec)
	r.mu.Unlock()
	cacheFoldsFresh(t, r, mem, cfg, "TXT record put over as an ownership value")
}
