package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 11, fault suite: the Lease is deleted by hand while one of two replicas leads. a plain Lease election (client-go's, or ours without the watch) lets
// the follower that finds no Lease create one and lead at once, while the old leader, now reading
// another holder, leads on until its renew deadline: two writers. Here two replicas run the election
// on a real API server, each term "writes" until its context ends, and the Lease is deleted until the
// follower is the one that re-creates it. At no instant may both write.
func TestLeaseDeletedByHandNeverTwoWriters(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	client := kube.Client(t) // inspects the Lease
	kc := kube.Kube(t)       // what the election writes through
	cfg := config.Config{
		LeaderElectNamespace: "default", LeaderElectLeaseName: "zonekeeper-deleted",
		LeaderElectLeaseDuration: 3 * time.Second, LeaderElectRenewDeadline: 2 * time.Second,
		LeaderElectRetryPeriod: 200 * time.Millisecond,
	}
	var (
		active, most atomic.Int32
		mu           sync.Mutex
		writer       string // replica of the running term
		terms        []string
	)
	leadAs := func(name string) func(context.Context) {
		return func(ctx context.Context) {
			n := active.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			mu.Lock()
			writer, terms = name, append(terms, name)
			mu.Unlock()
			<-ctx.Done()
			active.Add(-1)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runElected(ctx, cfg, kc, func(string) string { return "" }, log, func(bool) {}, leadAs(name))
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	current := func() string {
		mu.Lock()
		defer mu.Unlock()
		return writer
	}
	testbed.Eventually(t, 30*time.Second, "a leader", func() error {
		if current() == "" {
			return fmt.Errorf("none yet")
		}
		return nil
	})

	leases := client.CoordinationV1().Leases("default")
	first, takeovers := current(), 0
	for attempt := 0; attempt < 30 && current() == first; attempt++ {
		if err := leases.Delete(context.Background(), cfg.LeaderElectLeaseName, metav1.DeleteOptions{}); err != nil {
			t.Logf("delete: %v", err)
		}
		// Either replica may re-create it; give the follower's term (and its wait) time to start.
		time.Sleep(cfg.LeaderElectLeaseDuration + time.Second)
		takeovers = attempt + 1
	}
	if current() == first {
		t.Fatalf("the follower never took over after %d deletions", takeovers)
	}
	time.Sleep(time.Second)
	if m := most.Load(); m > 1 {
		t.Errorf("%d replicas wrote at once after the Lease was deleted, want 1", m)
	}
	mu.Lock()
	t.Logf("terms %v; the follower took over after %d deletion(s); at most %d writer(s) at once", terms, takeovers, most.Load())
	mu.Unlock()
}

// writesSucceed is a Lease client whose writes always succeed, for the fence's clock arithmetic.
type writesSucceed struct{ leaseClient }

func (writesSucceed) Create(context.Context, coordinationv1.LeaseSpec) (*coordinationv1.Lease, error) {
	return &coordinationv1.Lease{}, nil
}
func (writesSucceed) Update(_ context.Context, l *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return l, nil
}

// The write fence is open while the last renewal started less than the renew deadline ago, closed
// after (as when the process was paused past it), and open again once a renewal succeeds.
func TestLeaseWatchFence(t *testing.T) {
	now := time.Unix(1000, 0)
	w := newLeaseWatch(writesSucceed{}, "me", 4*time.Second, 3*time.Second)
	w.now = func() time.Time { return now }
	if err := w.fresh(); err == nil {
		t.Fatal("open before any renewal")
	}
	if _, err := w.Update(context.Background(), &coordinationv1.Lease{}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2900 * time.Millisecond)
	if err := w.fresh(); err != nil {
		t.Fatalf("closed 2.9 s after a renewal: %v", err)
	}
	now = now.Add(200 * time.Millisecond)
	if err := w.fresh(); err == nil {
		t.Fatal("open 3.1 s after the last renewal (renew deadline 3 s)")
	}
	if _, err := w.Create(context.Background(), coordinationv1.LeaseSpec{}); err != nil {
		t.Fatal(err)
	}
	if err := w.fresh(); err != nil {
		t.Fatalf("closed right after a renewal: %v", err)
	}
}
