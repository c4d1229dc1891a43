package txt

import (
	"context"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// TestTwoOwnersOneZone: cluster-b never sees cluster-a's records as its own, and cannot change them.
func TestTwoOwnersOneZone(t *testing.T) {
	mem, p := newZone()
	a := mustNew(t, p, Config{OwnerID: "cluster-a"})
	b := mustNew(t, p, Config{OwnerID: "cluster-b"})
	ctx := context.Background()

	if err := a.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx"),
	}}); err != nil {
		t.Fatal(err)
	}
	// An orphaned TXT of cluster-a (its record was removed by hand).
	seed(t, mem, txtRecord("a-orphan.example.com", `"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/a/orphan"`))
	if err := b.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("api.example.com", "A", "203.0.113.11").WithLabel("resource", "service/b/api"),
		// cluster-b creates a record where cluster-a's TXT remains: the record is created, the
		// TXT stays cluster-a's, so cluster-b does not end up owning it.
		endpoint.New("orphan.example.com", "A", "203.0.113.12").WithLabel("resource", "service/b/orphan"),
	}}); err != nil {
		t.Fatal(err)
	}

	for _, reg := range []*Registry{a, b, mustNew(t, mem, Config{OwnerID: "cluster-b"})} {
		eps := mustRecords(t, reg)
		owners := map[string]string{}
		for _, e := range eps {
			owners[e.DNSName] = e.Owner()
		}
		want := map[string]string{"nginx.example.com": "cluster-a", "api.example.com": "cluster-b", "orphan.example.com": "cluster-a"}
		for name, owner := range want {
			if owners[name] != owner {
				t.Errorf("registry %s: %s owned by %q, want %q", reg.OwnerID(), name, owners[name], owner)
			}
		}
	}

	// cluster-b tries to delete and update cluster-a's record, even with a forged owner label.
	forged := endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("owner", "cluster-b")
	honest := endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("owner", "cluster-a")
	before := len(p.applied)
	if err := b.ApplyChanges(ctx, &plan.Changes{
		Delete:    []*endpoint.Endpoint{forged, honest},
		UpdateOld: []*endpoint.Endpoint{forged},
		UpdateNew: []*endpoint.Endpoint{endpoint.New("nginx.example.com", "A", "192.0.2.66").WithLabel("owner", "cluster-b")},
	}); err != nil {
		t.Fatal(err)
	}
	if len(p.applied) != before {
		t.Fatalf("changes to another owner's record reached the provider: %+v", p.last())
	}
	if e := find(mustRecords(t, a), "nginx.example.com", "A"); e == nil || e.Targets[0] != "203.0.113.10" || e.Owner() != "cluster-a" {
		t.Fatalf("cluster-a's record changed: %v", e)
	}
}

// Both checks apply: the caller's owner label must be ours even when the cache would agree, and a
// record the cache does not know is judged by its label.
func TestDeleteNeedsOurOwnerLabel(t *testing.T) {
	_, p := newZone()
	a := mustNew(t, p, Config{OwnerID: "cluster-a"})
	ctx := context.Background()
	if err := a.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("nginx.example.com", "A", "203.0.113.10").WithLabel("resource", "service/default/nginx"),
	}}); err != nil {
		t.Fatal(err)
	}
	before := len(p.applied)
	if err := a.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{
		endpoint.New("nginx.example.com", "A", "203.0.113.10"),                                   // no owner label
		endpoint.New("unknown.example.com", "A", "203.0.113.11").WithLabel("owner", "cluster-b"), // not cached
	}}); err != nil {
		t.Fatal(err)
	}
	if len(p.applied) != before {
		t.Fatalf("deletes without our owner label reached the provider: %+v", p.last())
	}
}
