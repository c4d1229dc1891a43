package txt

import (
	"context"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// TestGeneration: the generation is known only while Records would serve the cache, stays the same
// while nothing changes, and moves with every write through the registry and every listing.
func TestGeneration(t *testing.T) {
	mem, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Minute})
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }
	if _, _, ok := r.Generation(); ok {
		t.Fatal("a generation before anything is cached")
	}
	mustRecords(t, r)
	s1, m1, ok := r.Generation()
	if !ok {
		t.Fatal("no generation with a fresh cache")
	}
	mustRecords(t, r)
	if s, m, _ := r.Generation(); s != s1 || m != m1 {
		t.Fatalf("Records from the cache moved the generation: %d/%d -> %d/%d", s1, m1, s, m)
	}
	if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	s2, m2, ok := r.Generation()
	if !ok || s2 != s1 || m2 == m1 {
		t.Fatalf("a write did not move the generation: %d/%d -> %d/%d (ok %v)", s1, m1, s2, m2, ok)
	}
	// A record written out of band is seen only through a listing, which changes the serial.
	seed(t, mem, endpoint.New("behind-our-back.example.com", "A", "203.0.113.1"))
	now = now.Add(time.Minute)
	if _, _, ok := r.Generation(); ok {
		t.Fatal("a generation for a cache older than the interval")
	}
	mustRecords(t, r)
	if s, _, ok := r.Generation(); !ok || s == s2 {
		t.Fatalf("a listing kept the serial %d (ok %v)", s, ok)
	}
	r.Invalidate()
	if _, _, ok := r.Generation(); ok {
		t.Fatal("a generation after Invalidate")
	}
}

// TestGenerationWithoutCache: without a cache interval every Records lists, so nothing is known.
func TestGenerationWithoutCache(t *testing.T) {
	_, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "a"})
	mustRecords(t, r)
	if _, _, ok := r.Generation(); ok {
		t.Fatal("a generation although Records would list")
	}
}
