// Package pacing is the client-side request budget of one API account: a token bucket shared by every
// zone and view of the process that uses that account. It starts at the provider's documented rate,
// halves on each throttling answer (Route 53 Throttling or PriorRequestNotComplete, HTTP 429), waits
// out a Retry-After the API gives, and recovers slowly on successes, so a big sync runs as fast as the
// account allows and no faster. Providers adopt it through Bucket.Wait before each attempt and
// Bucket.Observe after it; Pool hands out one Bucket per account key.
package pacing

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Recovery and floor of the adaptive rate: each success gives back RecoveryShare of the maximum (the
// rate recovers over about 50 answered calls), and throttling never takes it below FloorShare of the
// maximum (a tenth: Route 53's 5 requests/s becomes 0.5, still progress).
const (
	RecoveryShare = 0.02
	FloorShare    = 0.1
)

// Bucket paces the requests of one account. It is safe for concurrent use.
type Bucket struct {
	mu        sync.Mutex
	max       float64
	burst     int
	limiter   *rate.Limiter
	throttles int
	// pausedUntil is when a Retry-After the API asked for ends; nothing is sent before.
	pausedUntil time.Time
	now         func() time.Time
	// onRate, when set, is told the rate after every change (a gauge).
	onRate func(perSecond float64)
}

// New returns a bucket allowing perSecond requests per second at most (burst 1: requests are spread
// evenly, so an API that counts per second never sees a burst above its quota).
func New(perSecond float64) *Bucket { return NewBurst(perSecond, 1) }

// NewBurst returns a bucket that refills at perSecond and holds up to burst tokens, for an API that
// documents its limit as a token bucket (Azure Resource Manager: reads 250 tokens refilled at 25/s):
// a sync may spend the burst at once, then goes at the refill rate. It starts full, as the API's
// bucket does after a quiet while. burst below 1 is 1.
func NewBurst(perSecond float64, burst int) *Bucket {
	if perSecond <= 0 {
		perSecond = 1
	}
	burst = max(burst, 1)
	return &Bucket{max: perSecond, burst: burst, limiter: rate.NewLimiter(rate.Limit(perSecond), burst), now: time.Now}
}

// Burst is how many requests may go at once.
func (b *Bucket) Burst() int { return b.burst }

// Wait blocks until the next request may go: after any Retry-After pause (one that another request's
// throttling extended meanwhile too), then for a token.
func (b *Bucket) Wait(ctx context.Context) error {
	for {
		b.mu.Lock()
		pause := b.pausedUntil.Sub(b.now())
		b.mu.Unlock()
		if pause <= 0 {
			break
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return b.limiter.Wait(ctx)
}

// Rate is the current rate in requests per second.
func (b *Bucket) Rate() float64 { return float64(b.limiter.Limit()) }

// Max is the starting and highest rate.
func (b *Bucket) Max() float64 { return b.max }

// Throttles is how many throttling answers the bucket has seen.
func (b *Bucket) Throttles() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.throttles
}

// Throttled adapts to one "too many requests" answer: the rate halves (not below FloorShare of the
// maximum) and, when the API said how long to wait (Retry-After), nothing is sent before that. A
// bucket with a burst is emptied too: the API's bucket is, so the tokens counted here are not there
// (another client of the account spent them).
func (b *Bucket) Throttled(retryAfter time.Duration) {
	b.mu.Lock()
	b.throttles++
	if b.burst > 1 {
		now := b.now()
		if n := int(b.limiter.TokensAt(now)); n > 0 {
			b.limiter.AllowN(now, n)
		}
	}
	b.setLocked(max(b.max*FloorShare, float64(b.limiter.Limit())/2))
	if retryAfter > 0 {
		if until := b.now().Add(retryAfter); until.After(b.pausedUntil) {
			b.pausedUntil = until
		}
	}
	b.mu.Unlock()
}

// Succeeded adapts to one answered call: the rate recovers by RecoveryShare of the maximum.
func (b *Bucket) Succeeded() {
	b.mu.Lock()
	if cur := float64(b.limiter.Limit()); cur < b.max {
		b.setLocked(min(b.max, cur+b.max*RecoveryShare))
	}
	b.mu.Unlock()
}

// OnRate registers f to be told the rate now and after every change (a metric's gauge).
func (b *Bucket) OnRate(f func(perSecond float64)) {
	b.mu.Lock()
	b.onRate = f
	b.mu.Unlock()
	f(b.Rate())
}

func (b *Bucket) setLocked(perSecond float64) {
	b.limiter.SetLimit(rate.Limit(perSecond))
	if b.onRate != nil {
		b.onRate(perSecond)
	}
}
