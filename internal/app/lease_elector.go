package app

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leaseElector acquires, renews and releases one coordination/v1 Lease with the record client-go's
// LeaseLock writes (holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions),
// so that replicas of an older zonekeeper, which used client-go's election, and this one fence each
// other during a rolling update.
//
// A Lease held by another replica is taken over only when it has not changed for its
// leaseDurationSeconds by this replica's clock, counted from when this replica first read it as it
// is: the holder's clock is never compared with ours. Every write carries the resourceVersion of the
// Lease it was computed from, so a write that lost a race fails with a conflict, and the next try
// reads the Lease again instead of overwriting it.
//
// One elector is used from one goroutine at a time.
type leaseElector struct {
	leases        *leaseWatch
	name          string // namespace/name of the Lease, for logs
	identity      string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
	now           func() time.Time
	log           *slog.Logger
	// onNewLeader is told each holder this replica sees, once per change.
	onNewLeader func(holder string)

	// lease is the Lease as last read or written: the next Update starts from its resourceVersion.
	lease *coordinationv1.Lease
	// observed is the record last seen (read, or written by this replica) and observedAt the local
	// time it was first seen; the lease it describes is valid until observedAt + its duration.
	observed   coordinationv1.LeaseSpec
	observedAt time.Time
	// lastRead is the record of the last Get, to tell a renewal by the holder from a record read again.
	lastRead *coordinationv1.LeaseSpec
	reported string
}

// acquire tries to acquire the Lease every retry period (with jitter, so candidates do not move in
// step) until it holds it (true) or ctx ends (false).
func (e *leaseElector) acquire(ctx context.Context) bool {
	for {
		ok := e.tryAcquireOrRenew(ctx)
		e.reportLeader()
		if ok {
			return true
		}
		if !sleepCtx(ctx, e.retryPeriod+rand.N(e.retryPeriod*6/5)) {
			return false
		}
	}
}

// renew renews the Lease every retry period while this replica holds it. It returns when ctx ends
// (true) or when no renewal succeeded within the renew deadline of the last successful one (false):
// the lease duration is longer than the renew deadline, so this replica stops leading before another
// one may take the Lease over.
func (e *leaseElector) renew(ctx context.Context) bool {
	for sleepCtx(ctx, e.retryPeriod) {
		deadline := e.leases.lastRenewal().Add(e.renewDeadline)
		tryCtx, cancel := context.WithDeadline(ctx, deadline)
		renewed := false
		for !renewed && tryCtx.Err() == nil {
			renewed = e.tryAcquireOrRenew(tryCtx)
			e.reportLeader()
			if !renewed {
				sleepCtx(tryCtx, e.retryPeriod)
			}
		}
		cancel()
		if ctx.Err() != nil {
			return true
		}
		if !renewed {
			e.log.Info("Could not renew the Lease within the renew deadline", "lease", e.name,
				"identity", e.identity, "renewDeadline", e.renewDeadline)
			return false
		}
	}
	return true
}

// tryAcquireOrRenew makes one attempt to take or renew the Lease and says whether this replica now
// holds it.
func (e *leaseElector) tryAcquireOrRenew(ctx context.Context) bool {
	now := e.now()
	want := e.record(now)

	// A holder whose lease is still valid renews from the Lease it wrote last, without reading first.
	if e.lease != nil && e.holding() && e.valid(now) {
		want.AcquireTime, want.LeaseTransitions = e.observed.AcquireTime, e.observed.LeaseTransitions
		if e.update(ctx, want) == nil {
			return true
		}
		// Most often a conflict: someone else wrote the Lease. Read it again below.
	}

	lease, err := e.leases.Get(ctx)
	if apierrors.IsNotFound(err) {
		created, err := e.leases.Create(ctx, want)
		if err != nil {
			e.log.Debug("Could not create the Lease", "lease", e.name, "error", err.Error())
			return false
		}
		e.lease = created
		e.setObserved(want)
		return true
	}
	if err != nil {
		e.log.Debug("Could not read the Lease", "lease", e.name, "error", err.Error())
		return false
	}
	e.lease = lease
	if e.lastRead == nil || !sameLeaseRecord(e.lastRead, &lease.Spec) {
		e.setObserved(lease.Spec)
	}
	e.lastRead = lease.Spec.DeepCopy()
	if holderOf(&lease.Spec) != "" && !e.holding() && e.valid(now) {
		return false // another replica holds it and renewed it less than its lease duration ago
	}
	if e.holding() {
		want.AcquireTime, want.LeaseTransitions = lease.Spec.AcquireTime, lease.Spec.LeaseTransitions
	} else {
		want.LeaseTransitions = ptrTo(int32Of(lease.Spec.LeaseTransitions) + 1)
	}
	if err := e.update(ctx, want); err != nil {
		e.log.Debug("Could not write the Lease", "lease", e.name, "error", err.Error())
		return false
	}
	return true
}

// update writes want over the Lease last read or written, with its resourceVersion.
func (e *leaseElector) update(ctx context.Context, want coordinationv1.LeaseSpec) error {
	next := e.lease.DeepCopy()
	next.Spec = want
	updated, err := e.leases.Update(ctx, next)
	if err != nil {
		return err
	}
	e.lease = updated
	e.setObserved(want)
	return nil
}

// release gives the Lease up, if this replica still holds it, so that another one takes it over
// without waiting for it to run out: holder empty, lease duration 1 s, as client-go's release does.
// The write bypasses the watch's note of renewals: a released Lease opens no write fence.
func (e *leaseElector) release() {
	ctx, cancel := context.WithTimeout(context.Background(), e.renewDeadline)
	defer cancel()
	lease, err := e.leases.Get(ctx)
	if err != nil || holderOf(&lease.Spec) != e.identity {
		return
	}
	now := metav1.NewMicroTime(e.now())
	next := lease.DeepCopy()
	next.Spec = coordinationv1.LeaseSpec{
		HolderIdentity: ptrTo(""), LeaseDurationSeconds: ptrTo(int32(1)),
		AcquireTime: &now, RenewTime: &now, LeaseTransitions: lease.Spec.LeaseTransitions,
	}
	if _, err := e.leases.leaseClient.Update(ctx, next); err != nil {
		e.log.Info("Could not release the Lease", "lease", e.name, "error", err.Error())
		return
	}
	e.lease = nil
	e.setObserved(next.Spec)
}

// record is the Lease record of this replica taking the Lease now.
func (e *leaseElector) record(now time.Time) coordinationv1.LeaseSpec {
	at := metav1.NewMicroTime(now)
	return coordinationv1.LeaseSpec{
		HolderIdentity:       ptrTo(e.identity),
		LeaseDurationSeconds: ptrTo(int32(e.leaseDuration / time.Second)),
		AcquireTime:          &at,
		RenewTime:            &at,
		LeaseTransitions:     ptrTo(int32(0)),
	}
}

func (e *leaseElector) setObserved(spec coordinationv1.LeaseSpec) {
	e.observed, e.observedAt = *spec.DeepCopy(), e.now()
}

// holding is whether the record last seen names this replica.
func (e *leaseElector) holding() bool { return holderOf(&e.observed) == e.identity }

// valid is whether the lease last seen has not run out at now, by this replica's clock.
func (e *leaseElector) valid(now time.Time) bool {
	return e.observedAt.Add(time.Duration(int32Of(e.observed.LeaseDurationSeconds)) * time.Second).After(now)
}

func (e *leaseElector) reportLeader() {
	if holder := holderOf(&e.observed); holder != e.reported {
		e.reported = holder
		if e.onNewLeader != nil {
			e.onNewLeader(holder)
		}
	}
}

// sameLeaseRecord compares the fields of the election record.
func sameLeaseRecord(a, b *coordinationv1.LeaseSpec) bool {
	return holderOf(a) == holderOf(b) &&
		int32Of(a.LeaseDurationSeconds) == int32Of(b.LeaseDurationSeconds) &&
		int32Of(a.LeaseTransitions) == int32Of(b.LeaseTransitions) &&
		sameMicroTime(a.AcquireTime, b.AcquireTime) && sameMicroTime(a.RenewTime, b.RenewTime) &&
		stringOf(a.PreferredHolder) == stringOf(b.PreferredHolder) &&
		stringOf((*string)(a.Strategy)) == stringOf((*string)(b.Strategy))
}

func sameMicroTime(a, b *metav1.MicroTime) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func holderOf(spec *coordinationv1.LeaseSpec) string { return stringOf(spec.HolderIdentity) }

func stringOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func int32Of(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}

func ptrTo[T any](v T) *T { return &v }

// sleepCtx waits for d and says whether ctx is still alive.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
