package txt

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// versionedProvider is the inmemory provider with a listing version (provider.ListingVersioner) that
// the test sets, as a provider with a cache of its own reports it; during runs inside Records, after
// the listing, to change the version while the registry lists.
type versionedProvider struct {
	*recordingProvider
	version uint64
	known   bool
	during  func()
}

func (p *versionedProvider) ListingVersion() (uint64, bool) { return p.version, p.known }

func (p *versionedProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := p.recordingProvider.Records(ctx)
	if p.during != nil {
		p.during()
	}
	return eps, err
}

// newVersioned is a registry whose every Refresh is due (a cache interval of 1 ns), as at each resync,
// over a provider reporting version 1.
func newVersioned(t *testing.T) (*Registry, *versionedProvider) {
	t.Helper()
	mem, rec := newZone()
	seed(t, mem, endpoint.New("a.example.com", "A", "192.0.2.1"))
	p := &versionedProvider{recordingProvider: rec, version: 1, known: true}
	return mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Nanosecond}), p
}

func refreshes(t *testing.T, r *Registry, n int) {
	t.Helper()
	for range n {
		if err := r.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 15 (idle cost): while the provider reports the version the cache was listed at, a due Refresh
// keeps the cache (its generation too) without listing; a new version lists, and a listing that
// hashes the same still keeps the cache.
func TestListingVersionKeepsTheCacheWithoutListing(t *testing.T) {
	r, p := newVersioned(t)
	_, serial, mutations, err := r.RecordsWithGeneration(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	refreshes(t, r, 3)
	if p.lists != 1 {
		t.Fatalf("3 Refreshes at an unchanged version listed: %d listings, want 1", p.lists)
	}
	p.version = 2
	refreshes(t, r, 3)
	if p.lists != 2 {
		t.Fatalf("a new version is listed once: %d listings, want 2", p.lists)
	}
	eps, s, m, err := r.RecordsWithGeneration(context.Background())
	if err != nil || s != serial || m != mutations || len(eps) != 1 || p.lists != 2 {
		t.Fatalf("generation %d/%d -> %d/%d, %d records, %d listings, %v", serial, mutations, s, m, len(eps), p.lists, err)
	}
}

// A version the provider does not know, or one that changes while Records lists, ties nothing: each
// Refresh lists, as without a version. The first listing at a stable version is trusted afterwards.
func TestListingVersionNotKnownOrMovingIsNotTrusted(t *testing.T) {
	r, p := newVersioned(t)
	p.known = false
	mustRecords(t, r)
	refreshes(t, r, 2)
	if p.lists != 3 {
		t.Fatalf("unknown version: %d listings, want 3", p.lists)
	}
	p.known = true
	p.during = func() { p.version++ }
	refreshes(t, r, 2)
	if p.lists != 5 {
		t.Fatalf("a version moving during each listing: %d listings, want 5", p.lists)
	}
	p.during = nil
	refreshes(t, r, 3)
	if p.lists != 6 {
		t.Fatalf("a stable version is trusted after its first listing: %d listings, want 6", p.lists)
	}
}

// What the registry applied to its cache after the listing is not what the provider's listing would
// build (Route 53 lists a CNAME to a load balancer as an A alias): even at the same version the cache
// is not kept; the next Refresh lists and builds it again from the provider's listing.
func TestListingVersionDoesNotCoverTheRegistrysOwnChanges(t *testing.T) {
	r, p := newVersioned(t)
	_, serial, _, err := r.RecordsWithGeneration(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.2")}}); err != nil {
		t.Fatal(err)
	}
	refreshes(t, r, 1)
	if p.lists != 2 {
		t.Fatalf("after an ApplyChanges at the same version: %d listings, want 2", p.lists)
	}
	eps, s, _, err := r.RecordsWithGeneration(context.Background())
	if err != nil || s == serial || !strings.Contains(asJSON(t, eps), "www.example.com") {
		t.Fatalf("the cache was not built again from the listing: serial %d -> %d, %v", serial, s, err)
	}
	refreshes(t, r, 2)
	if p.lists != 2 {
		t.Fatalf("the rebuilt cache is kept at that version: %d listings, want 2", p.lists)
	}
}
