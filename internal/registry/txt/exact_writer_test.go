package txt

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/builtin"
)

// listCountingBuiltin is the built-in server's provider counting its listings; embedding keeps its
// ListingVersion and ListsExactlyWhatItWrote.
type listCountingBuiltin struct {
	*builtin.Provider
	lists atomic.Int32
}

func (p *listCountingBuiltin) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.lists.Add(1)
	return p.Provider.Records(ctx)
}

// Issue 15 (1M endpoints, the built-in server): a provider that lists exactly what it wrote
// (provider.ExactWriter) keeps the registry's cache tied to its listing through the registry's own
// writes, so a resync after a write does not list again. Over 400 random batches of creates, updates
// and deletes (some rejected by the server: set identifiers, a second CNAME target) each followed by
// a resync's drop and Refresh, the registry lists the provider only at the start and after a write of a
// name that is not normalised, and what it serves equals a fresh registry's listing after every step.
func TestExactWriterNeedsNoListingAfterItsWrites(t *testing.T) {
	srv, err := dnsserver.New(dnsserver.Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{"example.com"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	bp, err := builtin.New(srv, "default")
	if err != nil {
		t.Fatal(err)
	}
	p := &listCountingBuiltin{Provider: bp}
	cfg := Config{OwnerID: "a", CacheInterval: time.Nanosecond} // every Refresh is due, as at each resync
	r := mustNew(t, p, cfg)
	ctx := context.Background()
	if err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(15, 1))
	types := []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}
	target := func(rt string) string {
		switch rt {
		case endpoint.RecordTypeA:
			return fmt.Sprintf("192.0.2.%d", 1+rng.IntN(250))
		case endpoint.RecordTypeAAAA:
			return fmt.Sprintf("2001:db8::%x", 1+rng.IntN(250))
		case endpoint.RecordTypeCNAME:
			return fmt.Sprintf("lb-%d.example.net", rng.IntN(9))
		}
		return fmt.Sprintf("v=%d", rng.IntN(99))
	}
	relisted := int32(0)
	for step := range 400 {
		var unnormalised *endpoint.Endpoint
		owned := mustRecords(t, r)
		var mine []*endpoint.Endpoint
		for _, e := range owned {
			if e.Labels[endpoint.OwnerLabelKey] == "a" {
				mine = append(mine, e)
			}
		}
		changes := &plan.Changes{}
		taken := map[string]bool{}
		for range 1 + rng.IntN(4) {
			switch op := rng.IntN(10); {
			case op < 5 || len(mine) == 0:
				rt := types[rng.IntN(len(types))]
				name := fmt.Sprintf("h%d.example.com", rng.IntN(60))
				if taken[name] || find(owned, name, "") != nil {
					continue
				}
				taken[name] = true
				e := endpoint.New(name, rt, target(rt))
				switch rng.IntN(9) {
				case 8:
					e.DNSName = strings.ToUpper(name[:1]) + name[1:] // not normalised: the next Refresh lists
					unnormalised = e
				case 0:
					e.RecordTTL = endpoint.TTL(30 + rng.IntN(600))
				case 1:
					e.SetIdentifier = "eu" // the server refuses it
				case 2:
					if rt == endpoint.RecordTypeCNAME {
						e.Targets = append(e.Targets, "second.example.net") // refused: one CNAME target
					}
				}
				changes.Create = append(changes.Create, e)
			case op < 8:
				old := mine[rng.IntN(len(mine))]
				if taken[old.DNSName] {
					continue
				}
				taken[old.DNSName] = true
				n := old.DeepCopy()
				n.Targets = endpoint.Targets{target(n.RecordType)}
				if rng.IntN(3) == 0 {
					n.RecordTTL = endpoint.TTL(60 + rng.IntN(300))
				}
				changes.UpdateOld, changes.UpdateNew = append(changes.UpdateOld, old), append(changes.UpdateNew, n)
			default:
				old := mine[rng.IntN(len(mine))]
				if taken[old.DNSName] {
					continue
				}
				taken[old.DNSName] = true
				changes.Delete = append(changes.Delete, old)
			}
		}
		if err := r.ApplyChanges(ctx, changes); err != nil {
			if _, rejected := provider.AsApplyError(err); !rejected {
				t.Fatalf("step %d: %v", step, err)
			}
		}
		before := p.lists.Load()
		r.Invalidate() // a resync drops the cache
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		assertCacheIsFresh(t, r, p.Provider, cfg)
		switch n := p.lists.Load() - before; {
		case n > 1:
			t.Fatalf("step %d: %d listings in one Refresh", step, n)
		case n == 1 && unnormalised == nil:
			t.Fatalf("step %d: a write of normalised names was listed again", step)
		case n == 1:
			relisted++
		}
	}
	if relisted < 3 || p.lists.Load() != 1+relisted {
		t.Fatalf("%d steps listed again after writing a name not normalised (%d listings in all): the steps do not exercise both paths", relisted, p.lists.Load())
	}
}
