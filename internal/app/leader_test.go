package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 11 defect 3: client-go cancels a term's context when the Lease is lost but does not wait for
// the term's work to end, and runElected started the next election at once. A term whose last
// provider write is still finishing then ran beside the next term: two reconcile loops, two writers.
// Here each term's work keeps running 3 s after its context ends; the Lease is stolen, then the API
// server is paused (SIGSTOP) past the renew deadline. Every term must start after the previous one
// ended.
func TestNextTermWaitsForThePreviousOne(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	client := kube.Client(t) // inspects the Lease
	kc := kube.Kube(t)       // what the election writes through
	cfg := config.Config{
		LeaderElectNamespace: "default", LeaderElectLeaseName: "zonekeeper-terms",
		LeaderElectLeaseDuration: 2 * time.Second, LeaderElectRenewDeadline: 1500 * time.Millisecond,
		LeaderElectRetryPeriod: 200 * time.Millisecond,
	}
	var active, most, terms atomic.Int32
	lead := func(ctx context.Context) {
		n := active.Add(1)
		defer active.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		terms.Add(1)
		<-ctx.Done()
		time.Sleep(3 * time.Second) // a provider write that finishes after the term ended
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		defer close(done)
		runElected(ctx, cfg, kc, func(string) string { return "" }, log, func(bool) {}, lead)
	}()
	waitTerms := func(want int32, why string) {
		t.Helper()
		testbed.Eventually(t, 30*time.Second, why, func() error {
			if got := terms.Load(); got < want {
				return fmt.Errorf("%d terms so far, want %d", got, want)
			}
			return nil
		})
	}
	waitTerms(1, "first term")

	// Steal the Lease: another holder, renewed now, for longer than the renew deadline.
	leases := client.CoordinationV1().Leases("default")
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error { // the holder renews every 200 ms
		lease, err := leases.Get(context.Background(), cfg.LeaderElectLeaseName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		thief, four := "thief", int32(4)
		now := metav1.NewMicroTime(time.Now())
		lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds = &thief, &four
		lease.Spec.AcquireTime, lease.Spec.RenewTime = &now, &now
		_, err = leases.Update(context.Background(), lease, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	waitTerms(2, "a term after the Lease was stolen")

	// A partition: the API server stops answering for longer than the renew deadline.
	kube.Pause(t)
	time.Sleep(3 * time.Second)
	kube.Resume(t)
	waitTerms(3, "a term after the API server came back")

	cancel()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("runElected did not return after its context ended")
	}
	if active.Load() != 0 {
		t.Errorf("runElected returned while %d terms still ran", active.Load())
	}
	if m := most.Load(); m > 1 {
		t.Errorf("%d terms ran at once, want 1", m)
	}
	t.Logf("%d terms, at most %d at once", terms.Load(), most.Load())
}
