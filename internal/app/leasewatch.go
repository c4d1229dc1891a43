package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leaseWatch wraps the Lease client to close the gap a plain Lease election leaves when the Lease is
// deleted by hand (or overwritten by another holder): the election (like client-go's) lets a follower
// that finds no Lease create one and lead at once, and lets the old leader, which now reads another holder, go on leading
// until its renew deadline. For that time two replicas write.
//
// With the watch, the old leader's term ends as soon as one of its reads shows another holder, and a
// new term whose replica saw another holder renew less than a lease duration ago waits until that
// lease would have run out before it writes. A lease released on shutdown (empty holder) needs no
// wait: its holder gave it up after its term ended.
type leaseWatch struct {
	leaseClient
	identity      string
	leaseDuration time.Duration
	now           func() time.Time

	renewDeadline time.Duration

	mu sync.Mutex
	// renewedAt is when the last successful Create or Update of the Lease by this replica started.
	renewedAt time.Time
	// endTerm ends the running term of this replica; nil between terms.
	endTerm func()
	// foreignRenew is the renew time of the last record held by another replica that this replica
	// read, and foreignSeen the local time it first read it.
	foreignRenew metav1.MicroTime
	foreignSeen  time.Time
}

func newLeaseWatch(leases leaseClient, identity string, leaseDuration, renewDeadline time.Duration) *leaseWatch {
	return &leaseWatch{leaseClient: leases, identity: identity, leaseDuration: leaseDuration, renewDeadline: renewDeadline, now: time.Now}
}

// Create creates the Lease held by this replica and notes when.
func (w *leaseWatch) Create(ctx context.Context, spec coordinationv1.LeaseSpec) (*coordinationv1.Lease, error) {
	return w.renewed(func() (*coordinationv1.Lease, error) { return w.leaseClient.Create(ctx, spec) })
}

// Update renews (or takes) the Lease and notes when.
func (w *leaseWatch) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return w.renewed(func() (*coordinationv1.Lease, error) { return w.leaseClient.Update(ctx, lease) })
}

func (w *leaseWatch) renewed(write func() (*coordinationv1.Lease, error)) (*coordinationv1.Lease, error) {
	started := w.now()
	lease, err := write()
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.renewedAt = started
	return lease, nil
}

// lastRenewal is when the last successful Create or Update by this replica started.
func (w *leaseWatch) lastRenewal() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.renewedAt
}

// fresh is the write fence of a term: writing is allowed while the last renewal started less than the
// renew deadline ago. Another replica can take the Lease only a lease duration after the last renewal
// it saw, so a write that passes the fence starts at least (lease duration - renew deadline) before
// that; a replica that was paused or cut off past the deadline writes nothing until it renews.
func (w *leaseWatch) fresh() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if age := w.now().Sub(w.renewedAt); age >= w.renewDeadline {
		return fmt.Errorf("the Lease was last renewed %s ago (renew deadline %s): not writing until it is renewed",
			age.Round(time.Millisecond), w.renewDeadline)
	}
	return nil
}

// Get reads the Lease and notes who holds it.
func (w *leaseWatch) Get(ctx context.Context) (*coordinationv1.Lease, error) {
	lease, err := w.leaseClient.Get(ctx)
	if err == nil {
		w.observe(&lease.Spec)
	}
	return lease, err
}

func (w *leaseWatch) observe(spec *coordinationv1.LeaseSpec) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch holderOf(spec) {
	case w.identity:
		return
	case "":
		w.foreignSeen = time.Time{} // released
		return
	}
	var renew metav1.MicroTime
	if spec.RenewTime != nil {
		renew = *spec.RenewTime
	}
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
