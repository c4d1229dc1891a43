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

// A bucket with a burst lets that many requests go at once, then paces at its rate; a throttle empties
// it, so the next request waits for a refill.
func TestBurstBucket(t *testing.T) {
	b := NewBurst(10, 20)
	ctx := context.Background()
	start := time.Now()
	for range 20 {
		if err := b.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("20 requests within a burst of 20 took %s, want at once", d)
	}
	if err := b.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Fatalf("the 21st request went after %s, want about 100 ms (10/s)", d)
	}
	full := NewBurst(1000, 50)
	full.Throttled(0)
	start = time.Now()
	if err := full.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Millisecond {
		t.Fatalf("after a throttle a full bucket let a request go at once (%s): it must be emptied", d)
	}
	if New(5).Burst() != 1 || NewBurst(5, 0).Burst() != 1 {
		t.Fatal("New and a burst below 1 mean burst 1")
	}
}

func TestPoolClassBuckets(t *testing.T) {
	m := &recorded{rates: map[string]float64{}}
	p := NewPool("azure", m)
	r, w, r2 := p.ClassBucket("sub=s", "read", 25, 250), p.ClassBucket("sub=s", "write", 10, 200), p.ClassBucket("sub=s", "read", 1, 1)
	if r != r2 || r == w || r.Max() != 25 || r.Burst() != 250 || w.Max() != 10 || w.Burst() != 200 {
		t.Fatal("one bucket per account and class, made at the first rate and burst asked for")
	}
	w.Throttled(0)
	if m.rates["azure/sub=s write"] != 5 || m.rates["azure/sub=s read"] != 25 {
		t.Fatalf("rates reported: %v", m.rates)
	}
	if p.Bucket("sub=s", 5) == r {
		t.Fatal("an account's plain bucket is not one of its class buckets")
	}
}
