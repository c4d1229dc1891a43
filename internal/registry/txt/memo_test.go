package txt

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

// The fold is memoized and refolded per name after writes. Under random sequences of creates, updates
// (including type changes and owner hand-over), deletes, foreign TXTs and wildcards, what the cache
// returns must always equal what a fresh registry folds from the same provider.
func TestFoldMemoMatchesAFreshFold(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	for _, cfg := range []Config{
		{OwnerID: "me"},
		{OwnerID: "me", Prefix: "p-%{record_type}."},
		{OwnerID: "me", WildcardReplacement: "wc"},
		{OwnerID: "me", Suffix: "-own"},
	} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) {
			p := inmemory.New("example.com")
			cfg.CacheInterval = time.Hour
			reg, err := New(p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			names := []string{"a.example.com", "b.example.com", "*.example.com", "wc.example.com", "c.a.example.com"}
			targets := []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"}
			for step := 0; step < 300; step++ {
				current, err := reg.Records(ctx)
				if err != nil {
					t.Fatal(err)
				}
				name := names[rnd.Intn(len(names))]
				var existing *endpoint.Endpoint
				for _, e := range current {
					if e.DNSName == name && e.RecordType == endpoint.RecordTypeA {
						existing = e
					}
				}
				c := &plan.Changes{}
				switch {
				case rnd.Intn(7) == 0: // someone else writes a TXT claiming the name
					foreign := endpoint.New(reg.Mapper().TXTName(name, endpoint.RecordTypeA), endpoint.RecordTypeTXT,
						`"heritage=external-dns,external-dns/owner=other,external-dns/resource=service/x/y"`)
					_ = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{foreign}})
					reg.Invalidate() // a write the registry did not make is seen at the next resync
				case existing == nil:
					c.Create = []*endpoint.Endpoint{endpoint.New(name, endpoint.RecordTypeA, targets[rnd.Intn(3)]).
						WithLabel(endpoint.ResourceLabelKey, "ingress/default/"+fmt.Sprint(step))}
				case existing.Owner() == "me" && rnd.Intn(2) == 0:
					nu := existing.DeepCopy()
					nu.Targets = endpoint.Targets{targets[rnd.Intn(3)]}
					nu.Labels[endpoint.ResourceLabelKey] = "ingress/default/" + fmt.Sprint(step)
					c.UpdateOld, c.UpdateNew = []*endpoint.Endpoint{existing}, []*endpoint.Endpoint{nu}
				case existing.Owner() == "me":
					c.Delete = []*endpoint.Endpoint{existing}
				}
				if c.HasChanges() {
					_ = reg.ApplyChanges(ctx, c) // rejections are fine: the cache must still be right
				}
				cached, ok := reg.CachedRecords()
				if !ok {
					continue
				}
				fresh, err := New(p, cfg)
				if err != nil {
					t.Fatal(err)
				}
				want, err := fresh.Records(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := describeAll(cached), describeAll(want); a != b {
					t.Fatalf("step %d: memo differs from a fresh fold\nmemo:  %s\nfresh: %s", step, a, b)
				}
			}
		})
	}
}

func describeAll(eps []*endpoint.Endpoint) string {
	out := ""
	for _, e := range eps {
		out += fmt.Sprintf("%s %s %v owner=%s res=%s %v; ", e.DNSName, e.RecordType, e.Targets, e.Owner(), e.Resource(), e.ProviderSpecific)
	}
	return out
}
