package emucontrol

import (
	"math"
	"testing"
	"time"
)

func TestRateLimiterDisabledLetsEverythingThrough(t *testing.T) {
	var l RateLimiter
	for range 100 {
		if _, ok := l.Take(t0, "a"); !ok {
			t.Fatal("zero RateLimiter refused a request")
		}
	}
}

func TestRateLimiterBurstThenWait(t *testing.T) {
	var l RateLimiter
	l.Set(2, 3)
	for i := range 3 {
		if _, ok := l.Take(t0, "a"); !ok {
			t.Fatalf("request %d within the burst of 3 refused", i+1)
		}
	}
	wait, ok := l.Take(t0, "a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("fourth request: ok=%v wait=%v; want refused with 500ms to the next token at 2/s", ok, wait)
	}
	if _, ok := l.Take(t0, "b"); !ok {
		t.Fatal("another credential's bucket was emptied too")
	}
	if _, ok := l.Take(t0.Add(500*time.Millisecond), "a"); !ok {
		t.Fatal("no token after 500ms at 2/s")
	}
}

func TestRateLimiterDefaultBurstIsCeilOfRate(t *testing.T) {
	var l RateLimiter
	l.Set(2.5, 0)
	n := 0
	for ; n < 10; n++ {
		if _, ok := l.Take(t0, "a"); !ok {
			break
		}
	}
	if n != 3 {
		t.Fatalf("burst 0 at 2.5/s let %d requests through at once, want ceil(2.5) = 3", n)
	}
}

func TestRateLimiterTimedSettingReturnsToTheOldOne(t *testing.T) {
	var l RateLimiter
	l.SetFor(t0, 1, 1, time.Minute)
	l.Take(t0, "a")
	if _, ok := l.Take(t0, "a"); ok {
		t.Fatal("timed limit of 1/s with burst 1 let a second request through")
	}
	for i := range 20 {
		if _, ok := l.Take(t0.Add(time.Minute), "a"); !ok {
			t.Fatalf("request %d after the timed limit ended refused; the old setting (no limit) should be back", i+1)
		}
	}
}

// TestRateLimiterLaterSettingOutlivesATimedOne: a setting made while a
// timed one runs (e.g. requestsPerSecond 0 to stop throttling early) is what
// the caller asked for last, so the end of the window must not bring the
// setting from before the window back over it.
func TestRateLimiterLaterSettingOutlivesATimedOne(t *testing.T) {
	for _, c := range []struct {
		name  string
		later func(l *RateLimiter, now time.Time)
	}{
		{"Set", func(l *RateLimiter, now time.Time) { l.Set(0, 0) }},
		{"SetFor without a duration", func(l *RateLimiter, now time.Time) { l.SetFor(now, 0, 0, 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l RateLimiter
			l.Set(1, 1) // the setting before the window
			l.SetFor(t0, 2, 2, time.Minute)
			c.later(&l, t0.Add(10*time.Second))
			for i := range 20 {
				if _, ok := l.Take(t0.Add(time.Minute), "a"); !ok {
					t.Fatalf("request %d after the window refused: the setting from before the window (1/s) came back over the later one (no limit)", i+1)
				}
			}
		})
	}
}

// TestRateLimiterTimedSettingInsideATimedOne: a second timed setting
// replaces the first; when it ends, the setting from before both returns,
// not the first window's rate for ever.
func TestRateLimiterTimedSettingInsideATimedOne(t *testing.T) {
	var l RateLimiter
	l.SetFor(t0, 1, 1, time.Minute)
	l.SetFor(t0.Add(10*time.Second), 2, 2, 10*time.Second)
	if l.Rate() != 2 {
		t.Fatalf("rate %v inside the second window, want 2", l.Rate())
	}
	l.Take(t0.Add(20*time.Second), "a")
	if l.Rate() != 0 {
		t.Fatalf("rate %v after the second window, want 0 (the setting before both)", l.Rate())
	}
	l.Take(t0.Add(2*time.Minute), "a")
	if l.Rate() != 0 {
		t.Fatalf("rate %v after the first window's end, want 0", l.Rate())
	}
}

func TestValidRate(t *testing.T) {
	for _, r := range []float64{0, 1, 2.5} {
		if !ValidRate(r) {
			t.Errorf("ValidRate(%v) = false", r)
		}
	}
	for _, r := range []float64{-1, math.NaN(), math.Inf(1)} {
		if ValidRate(r) {
			t.Errorf("ValidRate(%v) = true", r)
		}
	}
}
