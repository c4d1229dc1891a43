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
