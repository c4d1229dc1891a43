package txt

import (
	"context"
	"reflect"
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
	// Refresh cannot make the generation known without a cache, so it must not list: the Records
	// after it lists anyway (a resync listed twice with CacheInterval 0).
	before := p.lists
	if err := r.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustRecords(t, r)
	if n := p.lists - before; n != 1 {
		t.Fatalf("Refresh and Records without a cache listed %d times, want 1", n)
	}
}

// TestRelistingUnchangedKeepsTheCache: a listing that returns what the cache was built from keeps the
// cache (its fold memo and generation); any difference, ours or out of band, builds it anew.
func TestRelistingUnchangedKeepsTheCache(t *testing.T) {
	ctx := context.Background()
	mem, p := newZone()
	seed(t, mem, endpoint.New("web.example.com", "A", "192.0.2.1"),
		txtRecord("a-web.example.com", `"heritage=external-dns,external-dns/owner=a,external-dns/resource=service/default/web"`))
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Minute})
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }
	first := mustRecords(t, r)
	s1, m1, _ := r.Generation()

	r.Invalidate()
	if got := mustRecords(t, r); p.lists != 2 || !reflect.DeepEqual(got, first) {
		t.Fatalf("relisting after Invalidate: lists=%d records %v, want 2 and %v", p.lists, got, first)
	}
	if s, m, ok := r.Generation(); !ok || s != s1 || m != m1 {
		t.Fatalf("an unchanged relisting moved the generation %d/%d -> %d/%d (ok %v)", s1, m1, s, m, ok)
	}
	now = now.Add(time.Minute) // aged out: the same
	mustRecords(t, r)
	if s, m, ok := r.Generation(); p.lists != 3 || !ok || s != s1 || m != m1 {
		t.Fatalf("an unchanged relisting after the interval moved the generation to %d/%d (lists %d)", s, m, p.lists)
	}

	// Out of band, in place: same names, another address.
	if err := mem.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{endpoint.New("web.example.com", "A", "192.0.2.1")},
		UpdateNew: []*endpoint.Endpoint{endpoint.New("web.example.com", "A", "192.0.2.7")}}); err != nil {
		t.Fatal(err)
	}
	r.Invalidate()
	got := mustRecords(t, r)
	s2, _, _ := r.Generation()
	if len(got) != 1 || got[0].Targets[0] != "192.0.2.7" || s2 == s1 {
		t.Fatalf("out-of-band update: records %v serial %d (was %d)", got, s2, s1)
	}

	// Our own write patches the cache; the next listing builds it anew (same content, new serial).
	if err := r.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("api.example.com", "A", "192.0.2.8").
		WithLabel(endpoint.ResourceLabelKey, "service/default/api")}}); err != nil {
		t.Fatal(err)
	}
	patched := mustRecords(t, r)
	r.Invalidate()
	if got := mustRecords(t, r); !reflect.DeepEqual(got, patched) {
		t.Fatalf("relisting after our write: %v, want %v", got, patched)
	}
	if s, _, _ := r.Generation(); s == s2 {
		t.Fatalf("a cache patched by a write was kept by a relisting (serial %d)", s)
	}
}

// Issue 15: a cache older than the interval that is tied to the listing version the provider still
// reports is what Records keeps without listing, and RecordsNamed answers from it: its generation is
// known, so an idle resync needs no Refresh. The generation is the one Records then returns, without a
// listing. A moved or unknown version, or a cache the registry's own write left untied, is unknown.
func TestGenerationOfAnAgedCacheTiedToTheProvidersVersion(t *testing.T) {
	mem, rec := newZone()
	seed(t, mem, endpoint.New("a.example.com", "A", "192.0.2.1"))
	p := &versionedProvider{recordingProvider: rec, version: 1, known: true}
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Minute})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return clock }
	_, serial, mutations, err := r.RecordsWithGeneration(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(90 * time.Second)
	if s, m, ok := r.Generation(); !ok || s != serial || m != mutations {
		t.Fatalf("an aged cache at the provider's version: generation %d/%d (known %v), want %d/%d", s, m, ok, serial, mutations)
	}
	if _, s, m, err := r.RecordsWithGeneration(context.Background()); err != nil || s != serial || m != mutations || p.lists != 1 {
		t.Fatalf("Records after that: generation %d/%d, %d listings, %v; want %d/%d and no listing", s, m, p.lists, err, serial, mutations)
	}

	clock = clock.Add(90 * time.Second)
	p.known = false
	if _, _, ok := r.Generation(); ok {
		t.Fatal("an aged cache has a generation while the provider cannot tell its version")
	}
	p.known, p.version = true, 2
	if _, _, ok := r.Generation(); ok {
		t.Fatal("an aged cache has a generation at a version the provider no longer reports")
	}
	mustRecords(t, r) // lists at version 2 and ties to it
	if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.2")}}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(90 * time.Second) // the write left the cache untied: not an exact writer
	if _, _, ok := r.Generation(); ok {
		t.Fatal("an aged cache patched by the registry's own write has a generation")
	}
	if p.lists != 2 {
		t.Fatalf("%d listings, want 2: Generation never lists", p.lists)
	}
}
