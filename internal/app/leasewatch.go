package app

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaseWatch wraps the Lease lock to close the gap client-go's election leaves when the Lease is
// deleted by hand (or overwritten by another holder): client-go lets a follower that finds no Lease
// create one and lead at once, and lets the old leader, which now reads another holder, go on leading
// until its renew deadline. For that time two replicas write.
//
// With the watch, the old leader's term ends as soon as one of its reads shows another holder, and a
// new term whose replica saw another holder renew less than a lease duration ago waits until that
// lease would have run out before it writes. A lease released on shutdown (empty holder) needs no
// wait: its holder gave it up after its term ended.
type leaseWatch struct {
	resourcelock.Interface
	leaseDuration time.Duration
	now           func() time.Time

	mu sync.Mutex
	// endTerm ends the running term of this replica; nil between terms.
	endTerm func()
	// foreignRenew is the renew time of the last record held by another replica that this replica
	// read, and foreignSeen the local time it first read it.
	foreignRenew metav1.MicroTime
	foreignSeen  time.Time
}

func newLeaseWatch(lock resourcelock.Interface, leaseDuration time.Duration) *leaseWatch {
	return &leaseWatch{Interface: lock, leaseDuration: leaseDuration, now: time.Now}
}

// Get reads the Lease and notes who holds it.
func (w *leaseWatch) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	rec, raw, err := w.Interface.Get(ctx)
	if err == nil {
		w.observe(rec)
	}
	return rec, raw, err
}

func (w *leaseWatch) observe(rec *resourcelock.LeaderElectionRecord) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch rec.HolderIdentity {
	case w.Identity():
		return
	case "":
		w.foreignSeen = time.Time{} // released
		return
	}
	renew := metav1.NewMicroTime(rec.RenewTime.Time)
	if !renew.Equal(&w.foreignRenew) {
		w.foreignRenew, w.foreignSeen = renew, w.now()
	}
	if w.endTerm != nil {
		w.endTerm()
		w.endTerm = nil
	}
}

// startTerm registers how to end the term that starts now and returns how long it must wait before
// it writes.
func (w *leaseWatch) startTerm(end func()) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.endTerm = end
	if w.foreignSeen.IsZero() {
		return 0
	}
	return max(0, w.foreignSeen.Add(w.leaseDuration).Sub(w.now()))
}

// stopTerm forgets the term that ended.
func (w *leaseWatch) stopTerm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.endTerm = nil
}
