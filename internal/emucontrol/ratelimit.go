package emucontrol

import (
	"math"
	"time"
)

// RateLimiter is a token bucket per credential (account, project,
// subscription), the shape of every emulated API's quota. A rate of 0 lets
// everything through. The zero value is disabled; callers hold their lock.
type RateLimiter struct {
	rate    float64
	burst   int
	buckets map[string]*bucket
	// window is set while a timed setting (SetFor) is in force and holds
	// the setting that returns when it ends.
	window *rateWindow
}

type bucket struct {
	tokens float64
	last   time.Time
}

// rateWindow remembers the lasting setting a timed rate limit replaced.
type rateWindow struct {
	until time.Time
	rate  float64
	burst int
}

// ValidRate reports whether perSecond is a usable rate: finite and not
// negative (JSON cannot carry NaN, but the Go API can).
func ValidRate(perSecond float64) bool {
	return perSecond >= 0 && !math.IsNaN(perSecond) && !math.IsInf(perSecond, 0)
}

// Set changes the rate (requests per second; 0 disables) and the bucket size
// (0: max(1, ceil(rate))) until changed, and refills every bucket. It ends a
// timed setting still running: the caller asked for this one last, so the
// setting from before the window must not come back over it.
func (l *RateLimiter) Set(perSecond float64, burst int) {
	l.window = nil
	l.apply(perSecond, burst)
}

// SetFor applies a rate and burst for d (0: until changed, as Set), after
// which the lasting setting returns, e.g. to throttle for a minute in the
// middle of a test. A timed setting made while another runs replaces it;
// when it ends, the setting from before both returns.
func (l *RateLimiter) SetFor(now time.Time, perSecond float64, burst int, d time.Duration) {
	l.restore(now)
	if d <= 0 {
		l.Set(perSecond, burst)
		return
	}
	lasting := rateWindow{rate: l.rate, burst: l.burst}
	if l.window != nil {
		lasting = *l.window
	}
	lasting.until = now.Add(d)
	l.window = &lasting
	l.apply(perSecond, burst)
}

func (l *RateLimiter) apply(perSecond float64, burst int) {
	l.rate, l.burst = perSecond, burst
	l.Refill()
}

// Rate is the rate in force, for messages that quote it.
func (l *RateLimiter) Rate() float64 { return l.rate }

// Refill fills every bucket, as after a reset.
func (l *RateLimiter) Refill() { l.buckets = map[string]*bucket{} }

// Take takes one token from key's bucket; when the bucket is empty it
// reports false and how long until a token is free.
func (l *RateLimiter) Take(now time.Time, key string) (wait time.Duration, ok bool) {
	l.restore(now)
	if l.rate <= 0 {
		return 0, true
	}
	burst := float64(l.burst)
	if burst <= 0 {
		burst = math.Max(1, math.Ceil(l.rate))
	}
	if l.buckets == nil {
		l.Refill()
	}
	b, found := l.buckets[key]
	if !found {
		b = &bucket{tokens: burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / l.rate * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

// restore ends a timed setting that has run out.
func (l *RateLimiter) restore(now time.Time) {
	if l.window == nil || now.Before(l.window.until) {
		return
	}
	w := l.window
	l.window = nil
	l.apply(w.rate, w.burst)
}
