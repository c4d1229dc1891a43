package txt

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/builtin"
)

// coldStartBuiltin is the built-in server's provider (an exact writer, which reports the version of
// what its Records returns: provider.WithListedVersion) made to answer its listing version unknown
// until its first listing, as Route 53's does (nothing is cached before it). afterListing runs inside
// Records once the records are read: a change landing between the listing and the registry's
// question after it.
type coldStartBuiltin struct {
	*builtin.Provider
	listed       atomic.Bool
	lists        atomic.Int32
	afterListing func()
}

func (p *coldStartBuiltin) ListingVersion() (uint64, bool) {
	if !p.listed.Load() {
		return 0, false
	}
	return p.Provider.ListingVersion()
}

func (p *coldStartBuiltin) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.lists.Add(1)
	eps, err := p.Provider.Records(ctx)
	p.listed.Store(true)
	if p.afterListing != nil {
		p.afterListing()
	}
	return eps, err
}

func newColdStartBuiltin(t *testing.T) *coldStartBuiltin {
	t.Helper()
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
	return &coldStartBuiltin{Provider: bp}
}

// Issue 15 (the one-off full replan after start): the registry's first listing is made while the
// provider's version is still unknown. Pinned only by asking the version before and after, that
// cache was never tied, so the converging writes did not keep it tied either, and the first resync
// after them listed the provider again, built a new cache and moved the generation the controller's
// memo was keyed on (a full plan of every name). With the version Records reports with its records,
// the start's listing is tied: the writes keep it tied, and the resyncs after them list nothing and
// keep the generation the writes left.
func TestTheStartsListingIsTiedToTheVersionRecordsReports(t *testing.T) {
	ctx := context.Background()
	p := newColdStartBuiltin(t)
	seed(t, p.Provider, endpoint.New("old.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	// Every Refresh is due, as at each resync. The first is the start's listing, then the converging
	// writes.
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Nanosecond})
	if err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "ingress/default/web"),
		endpoint.New("api.example.com", endpoint.RecordTypeA, "192.0.2.3").WithLabel(endpoint.ResourceLabelKey, "ingress/default/api"),
	}}); err != nil {
		t.Fatal(err)
	}
	r.mu.RLock()
	serial, mutations := r.state.serial, r.state.mutations
	r.mu.RUnlock()
	for i := range 3 {
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		r.mu.RLock()
		s, m := r.state.serial, r.state.mutations
		r.mu.RUnlock()
		if n := p.lists.Load(); n != 1 || s != serial || m != mutations {
			t.Fatalf("resync %d after the converging writes: %d listings, generation %d/%d; want 1 listing (the start's) "+
				"and the writes' generation %d/%d", i+1, n, s, m, serial, mutations)
		}
	}
	eps, s, m, err := r.RecordsWithGeneration(ctx)
	if err != nil || len(eps) != 3 || find(eps, "api.example.com", endpoint.RecordTypeA) == nil || s != serial || m != mutations || p.lists.Load() != 1 {
		t.Fatalf("Records after the resyncs: %d records, generation %d/%d, %d listings, %v", len(eps), s, m, p.lists.Load(), err)
	}
	assertCacheIsFresh(t, r, p.Provider, Config{OwnerID: "a"})
}

// The version the provider asks after the listing is not the listing's when something changed in
// between: the registry trusts the version Records reported only when the provider still reports it
// afterwards. A record written behind the registry's back right after the start's listing is not
// hidden behind a cache tied to the version that write made: the next resync lists and finds it.
func TestAChangeAfterTheListingIsNotTiedToTheOldRecords(t *testing.T) {
	ctx := context.Background()
	p := newColdStartBuiltin(t)
	seed(t, p.Provider, endpoint.New("old.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	p.afterListing = func() {
		p.afterListing = nil
		seed(t, p.Provider, endpoint.New("late.example.com", endpoint.RecordTypeA, "192.0.2.9"))
	}
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Nanosecond})
	if eps := mustRecords(t, r); find(eps, "late.example.com", endpoint.RecordTypeA) != nil {
		t.Fatalf("the start's listing already holds the later write: %v", eps)
	}
	if err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	eps := mustRecords(t, r)
	if p.lists.Load() != 2 || find(eps, "late.example.com", endpoint.RecordTypeA) == nil {
		t.Fatalf("the resync after a write that landed after the start's listing: %d listings, records %v; want 2 and late.example.com",
			p.lists.Load(), eps)
	}
	refreshes(t, r, 2)
	if n := p.lists.Load(); n != 2 {
		t.Fatalf("the relisting is tied: %d listings after two more resyncs, want 2", n)
	}
}
