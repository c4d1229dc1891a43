package coredns

import (
	"context"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// TestEtcdOutage stops etcd: Records and ApplyChanges must fail within the operation timeout (plus a
// margin), with a plain error for the apply (nothing was written), and work again once etcd is back.
func TestEtcdOutage(t *testing.T) {
	etcd := startEtcd(t)
	b := newBed(t, etcd, false, "example.com")
	www := endpoint.NewWithTTL("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1")
	applyOK(t, b.provider, &plan.Changes{Create: []*endpoint.Endpoint{www}})

	etcd.Stop()
	bound := DefaultTimeout + 1500*time.Millisecond

	start := time.Now()
	if _, err := b.provider.Records(context.Background()); err == nil {
		t.Fatal("Records succeeded with etcd stopped")
	} else {
		t.Logf("Records: %v (after %s)", err, time.Since(start))
	}
	if d := time.Since(start); d > bound {
		t.Fatalf("Records took %s with etcd stopped, want under %s", d, bound)
	}

	start = time.Now()
	other := endpoint.NewWithTTL("other.example.com", endpoint.RecordTypeA, 300, "10.0.0.2")
	err := b.provider.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{other}})
	if err == nil {
		t.Fatal("ApplyChanges succeeded with etcd stopped")
	}
	if _, partial := provider.AsApplyError(err); partial {
		t.Fatalf("ApplyChanges with etcd stopped returned an ApplyError, want a plain error: %v", err)
	}
	if d := time.Since(start); d > bound {
		t.Fatalf("ApplyChanges took %s with etcd stopped, want under %s", d, bound)
	}
	t.Logf("ApplyChanges: %v (after %s)", err, time.Since(start))

	if err := etcd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err = b.provider.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{other}})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("ApplyChanges still failing after etcd restarted: %v", err)
	}
	expectSets(t, b.provider, www, other)
}
