package txt

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// probedProvider is a provider with a zone probe whose answer the test sets, and a listing that can
// leave a zone out.
type probedProvider struct {
	*recordingProvider
	stale   []string
	partial error
	relist  time.Duration
}

func (p *probedProvider) CheckZones(_ context.Context, relist time.Duration) ([]string, error) {
	p.relist = relist
	return p.stale, nil
}

func (p *probedProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := p.recordingProvider.Records(ctx)
	if err != nil {
		return nil, err
	}
	return eps, p.partial
}

// Issue 16: CheckZones forwards the probe; the registry folds the provider's records again only when a
// zone was dropped.
func TestCheckZonesDropsTheCacheOnlyWhenAZoneChanged(t *testing.T) {
	mem, rec := newZone()
	p := &probedProvider{recordingProvider: rec}
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Hour})
	mustRecords(t, r)
	seed(t, mem, endpoint.New("behind-our-back.example.com", "A", "203.0.113.1"))
	if stale, err := r.CheckZones(context.Background(), 7*time.Minute); err != nil || len(stale) != 0 || p.relist != 7*time.Minute {
		t.Fatalf("CheckZones = %v, %v (relist %s)", stale, err, p.relist)
	}
	if eps := mustRecords(t, r); len(eps) != 0 || rec.lists != 1 {
		t.Fatalf("nothing changed: the cache serves (lists %d, %v)", rec.lists, eps)
	}
	p.stale = []string{"example.com"}
	if stale, _ := r.CheckZones(context.Background(), 0); len(stale) != 1 {
		t.Fatal("the stale zone is reported")
	}
	if eps := mustRecords(t, r); len(eps) != 1 || rec.lists != 2 {
		t.Fatalf("a changed zone is folded again (lists %d, %v)", rec.lists, eps)
	}
	// Without a probe the caller is told so.
	plain := mustNew(t, rec, Config{OwnerID: "a"})
	if _, err := plain.CheckZones(context.Background(), 0); !errors.Is(err, provider.ErrNoZoneProbe) {
		t.Fatalf("without a probe: %v", err)
	}
}

// Issue 11: a listing that leaves zones out is cached with its error, which Records returns with the
// records of the other zones, from the cache too.
func TestPartialListingIsCachedWithItsError(t *testing.T) {
	mem, rec := newZone("a.test", "b.test")
	seed(t, mem, endpoint.New("x.a.test", "A", "192.0.2.1"))
	partial := &provider.UnreadableZonesError{Zones: []provider.UnreadableZone{{Name: "b.test", ID: "Z2"}}, Readable: []string{"a.test"}}
	p := &probedProvider{recordingProvider: rec, partial: fmt.Errorf("listing: %w", partial)}
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Hour})
	for range 2 {
		eps, err := r.Records(context.Background())
		if got, ok := provider.AsUnreadableZones(err); !ok || got != partial || len(eps) != 1 {
			t.Fatalf("Records = %v, %v; want x.a.test and the unreadable zone", eps, err)
		}
	}
	if rec.lists != 1 {
		t.Fatalf("the second call is served from the cache: %d listings", rec.lists)
	}
}
