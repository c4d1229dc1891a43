package txt

import (
	"context"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

func TestRecordsListsEveryTimeWithoutInterval(t *testing.T) {
	_, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "a"})
	mustRecords(t, r)
	mustRecords(t, r)
	if p.lists != 2 {
		t.Fatalf("listed %d times, want 2", p.lists)
	}
}

func TestCacheInterval(t *testing.T) {
	mem, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "a", CacheInterval: time.Minute})
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }

	mustRecords(t, r)
	seed(t, mem, endpoint.New("behind-our-back.example.com", "A", "203.0.113.1"))
	if eps := mustRecords(t, r); p.lists != 1 || len(eps) != 0 {
		t.Fatalf("within the interval the cache must serve: lists=%d eps=%v", p.lists, eps)
	}
	now = now.Add(time.Minute)
	if eps := mustRecords(t, r); p.lists != 2 || len(eps) != 1 {
		t.Fatalf("after the interval Records must list: lists=%d eps=%v", p.lists, eps)
	}
	r.Invalidate()
	mustRecords(t, r)
	if p.lists != 3 {
		t.Fatalf("Invalidate must force a listing, lists=%d", p.lists)
	}
}

func TestCachedRecordsNeverLists(t *testing.T) {
	_, p := newZone()
	r := mustNew(t, p, Config{OwnerID: "a"})
	if _, ok := r.CachedRecords(); ok || p.lists != 0 {
		t.Fatal("nothing is cached before the first listing")
	}
	// ApplyChanges needs to know the existing TXTs, so it lists once.
	if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("x.example.com", "A", "203.0.113.1").WithLabel("resource", "service/a/x"),
	}}); err != nil {
		t.Fatal(err)
	}
	eps, ok := r.CachedRecords()
	if !ok || p.lists != 1 || len(eps) != 1 || eps[0].Owner() != "a" || eps[0].Resource() != "service/a/x" {
		t.Fatalf("ok=%v lists=%d eps=%v", ok, p.lists, eps)
	}
	r.Invalidate()
	if _, ok := r.CachedRecords(); ok {
		t.Fatal("Invalidate must drop the cache")
	}
}

// Callers get copies: changing them does not change the cache.
func TestRecordsAreCopies(t *testing.T) {
	mem, p := newZone()
	seed(t, mem, endpoint.New("nginx.example.com", "A", "203.0.113.10"), txtRecord("a-nginx.example.com", nginxValue))
	r := mustNew(t, p, Config{OwnerID: "cluster-a"})
	eps := mustRecords(t, r)
	eps[0].Labels["owner"] = "mallory"
	eps[0].Targets[0] = "192.0.2.1"
	eps[0].SetProviderSpecific("x", "y")
	again, _ := r.CachedRecords()
	if again[0].Owner() != "cluster-a" || again[0].Targets[0] != "203.0.113.10" || len(again[0].ProviderSpecific) != 0 {
		t.Fatalf("cache was changed through a returned endpoint: %v", again[0])
	}
}
