package pacing

import (
	"context"
	"testing"
	"time"
)

func TestBucketAdapts(t *testing.T) {
	b := New(10)
	b.Throttled(0)
	if b.Rate() != 5 {
		t.Fatalf("after a throttle: %v req/s, want 5", b.Rate())
	}
	b.Throttled(0)
	b.Throttled(0)
	b.Throttled(0)
	if b.Rate() != 1 {
		t.Fatalf("the rate must not fall below a tenth of the maximum: %v", b.Rate())
	}
	for range 10 {
		b.Succeeded()
	}
	if r := b.Rate(); r < 2.99 || r > 3.01 {
		t.Fatalf("10 successes must give back 20%% of the maximum: %v", r)
	}
	for range 100 {
		b.Succeeded()
	}
	if b.Rate() != 10 || b.Throttles() != 4 {
		t.Fatalf("rate %v throttles %d, want 10 and 4", b.Rate(), b.Throttles())
	}
}

// A Retry-After stops every request of the account until it ends.
func TestBucketWaitsOutRetryAfter(t *testing.T) {
	b := New(1000)
	b.Throttled(300 * time.Millisecond)
	start := time.Now()
	if err := b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("Wait returned after %s, want the 300 ms Retry-After", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.Throttled(time.Minute)
	cancel()
	if err := b.Wait(ctx); err == nil {
		t.Fatal("Wait must end with its context")
	}
}

// A pause another request's throttling extends while a request waits holds that request too.
func TestBucketWaitsOutAnExtendedPause(t *testing.T) {
	b := New(1000)
	b.Throttled(100 * time.Millisecond)
	go func() {
		time.Sleep(50 * time.Millisecond)
		b.Throttled(300 * time.Millisecond) // until about 350 ms from the start
	}()
	start := time.Now()
	if err := b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("Wait returned after %s, before the extended pause ended (about 350 ms)", d)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"": 0, "2": 2 * time.Second, "0.5": 500 * time.Millisecond, "junk": 0, "-3": 0, "86400": MaxRetryAfter,
		"Thu, 26 Nov 2026 10:00:07 GMT": 7 * time.Second, "Thu, 26 Nov 2026 09:00:00 GMT": 0,
	} {
		if got := RetryAfter(h, now); got != want {
			t.Errorf("RetryAfter(%q) = %s, want %s", h, got, want)
		}
	}
}

type recorded struct{ rates map[string]float64 }

func (r *recorded) APICall(string, string, string, bool) {}
func (r *recorded) APIRate(p, account string, v float64) { r.rates[p+"/"+account] = v }

func TestPoolOneBucketPerAccount(t *testing.T) {
	m := &recorded{rates: map[string]float64{}}
	p := NewPool("aws", m)
	a, a2, other := p.Bucket("acct-a", 5), p.Bucket("acct-a", 50), p.Bucket("acct-b", 5)
	if a != a2 || a == other || a2.Max() != 5 {
		t.Fatal("one bucket per key, made at the first rate asked for")
	}
	a.Throttled(0)
	if m.rates["aws/acct-a"] != 2.5 || m.rates["aws/acct-b"] != 5 {
		t.Fatalf("rates reported: %v", m.rates)
	}
}

func TestRelistPeriod(t *testing.T) {
	if got := RelistPeriod(134, 5); got != 2680*time.Second {
		t.Fatalf("134 pages at 5/s: %s, want 2680s", got)
	}
	if got := RelistPeriod(1, 5); got != 20*time.Second {
		t.Fatalf("1 page at 5/s: %s, want 20s", got)
	}
	if RelistPeriod(0, 5) != 0 {
		t.Fatal("nothing to list: no period")
	}
}
