package txt

import (
	"context"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// An event's run reads the records at its names from the cache (RecordsNamed). A cache older than the
// cache interval (--interval) made it answer "list everything", so the run planned every name: with
// the resync ticking once per interval and a resync that finds the cache still young not refreshing
// it, the cache ages a moment after such a resync and stays aged until the next one, and an event in
// that window listed the sources and planned everything (the 20k side by side: the first events after
// idle took the heap from 48 to 120 MB). A cache tied to the provider's listing version, at a version
// the provider still reports, is what a listing would build (load keeps it without listing): the
// lookup answers from it and keeps it young; a moved or unknown version still answers "list".
func TestRecordsNamedAnswersFromAnAgedCacheTheProviderStillHolds(t *testing.T) {
	mem, rec := newZone()
	seed(t, mem, endpoint.New("a.example.com", "A", "192.0.2.1"), endpoint.New("b.example.com", "A", "192.0.2.2"))
	p := &versionedProvider{recordingProvider: rec, version: 1, known: true}
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Minute})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return clock }
	_, serial, mutations, err := r.RecordsWithGeneration(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	clock = clock.Add(90 * time.Second) // older than the interval
	eps, s, m, ok := r.RecordsNamed([]string{"a.example.com"})
	if !ok || len(eps) != 1 || eps[0].DNSName != "a.example.com" || s != serial || m != mutations || p.lists != 1 {
		t.Fatalf("an aged cache at the provider's version: ok %v, %d records, generation %d/%d -> %d/%d, %d listings; "+
			"want the one record, the same generation and no listing", ok, len(eps), serial, mutations, s, m, p.lists)
	}
	if s, m, ok := r.Generation(); !ok || s != serial || m != mutations {
		t.Fatalf("after the lookup the generation is %d/%d (known %v), want %d/%d: the confirmed cache is young again",
			s, m, ok, serial, mutations)
	}

	clock = clock.Add(90 * time.Second)
	p.version = 2 // the provider's listing moved: only a listing can tell what it holds
	if _, _, _, ok := r.RecordsNamed([]string{"a.example.com"}); ok {
		t.Fatal("an aged cache at a version the provider no longer reports answered a lookup")
	}
	mustRecords(t, r) // lists at version 2 and ties to it
	clock = clock.Add(90 * time.Second)
	p.known = false
	if _, _, _, ok := r.RecordsNamed([]string{"a.example.com"}); ok {
		t.Fatal("an aged cache answered a lookup while the provider cannot tell its version")
	}
	if p.lists != 2 {
		t.Fatalf("%d listings, want 2: a lookup never lists", p.lists)
	}
}
