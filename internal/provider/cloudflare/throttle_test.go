package cloudflare

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// countingMetrics counts what the provider reports to the process's metrics (pacing.Metrics).
type countingMetrics struct {
	mu        sync.Mutex
	throttled map[string]int
	calls     map[string]int // "zone call"
	rate      float64
}

func (m *countingMetrics) APICall(p, zone, call string, throttled bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.throttled == nil {
		m.throttled, m.calls = map[string]int{}, map[string]int{}
	}
	m.calls[zone+" "+call]++
	if throttled {
		m.throttled[p]++
	}
}

func (m *countingMetrics) APIRate(_, _ string, perSecond float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rate = perSecond
}

func (m *countingMetrics) callCount(zone, call string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[zone+" "+call]
}

func (m *countingMetrics) currentRate() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rate
}

func (m *countingMetrics) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.throttled["cloudflare"]
}

// An API that answers 429 is waited out for the Retry-After it asks (the account pauses), then the
// same request goes again; the sync converges, nothing is rejected, each 429 is counted in the
// metric, and the request after a 429 is not sent before its Retry-After has passed.
func TestThrottledRequestsWaitForRetryAfter(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	m := &countingMetrics{}
	p := newTestProvider(t, base, Config{Accounts: newAccounts(1000, m)})
	if _, err := p.Records(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(cloudflareemu.Fault{Operation: cloudflareemu.OpRecordsBatch, Status: http.StatusTooManyRequests, Count: 2, RetryAfter: 1}); err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	if err := adjustAndApply(t, p, &plan.Changes{Create: hosts(10)}); err != nil {
		t.Fatalf("ApplyChanges: %v", err)
	}
	if got := len(dumpZone(emu, "example.com")); got != 10 {
		t.Fatalf("%d records, want 10", got)
	}
	if m.count() != 2 || p.account.Throttles() != 2 {
		t.Errorf("throttles counted: metric %d, account %d; want 2", m.count(), p.account.Throttles())
	}
	calls := emu.Calls()
	if len(calls) != 3 {
		t.Fatalf("calls: %+v", calls)
	}
	for i := 1; i < len(calls); i++ {
		if gap := calls[i].Time.Sub(calls[i-1].Time); gap < 900*time.Millisecond {
			t.Errorf("call %d came %v after a 429 asking for 1s", i, gap)
		}
		if calls[i].Retry != 0 {
			t.Errorf("call %d is an SDK retry (%d): the provider's budget answers 429s itself", i, calls[i].Retry)
		}
	}
}

// A 429 asking for a pause longer than a request may wait fails the sync at once, as an error the
// controller retries with backoff, not a rejection; the account stays paused, so the next sync
// fails at once too, without a request.
func TestLongRetryAfterFailsTheSyncWithoutHoldingIt(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{})
	if _, err := p.Records(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(cloudflareemu.Fault{Status: http.StatusTooManyRequests, RetryAfter: 600}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := adjustAndApply(t, p, &plan.Changes{Create: hosts(3)})
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("want a 429 error, got %v", err)
	}
	if _, rejected := provider.AsApplyError(err); rejected {
		t.Fatalf("a throttled sync is not a rejection: %v", err)
	}
	before := emu.Counters().Total
	p.Invalidate() // a listing, not the cache
	_, err = p.Records(testCtx(t))
	var te *throttledError
	if !errors.As(err, &te) || emu.Counters().Total != before {
		t.Fatalf("the paused account sent a request, or did not say why: %v", err)
	}
	t.Logf("both syncs failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// The emulator's rate limit (4 per second, burst 1) against a provider allowed 1000 per second: the
// 429s slow the account down (the bucket halves) and every record arrives, once.
func TestRateLimitedAccountConverges(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{RateLimit: 4, Burst: 1})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	m := &countingMetrics{}
	p := newTestProvider(t, base, Config{BatchChangeSize: 5, Accounts: newAccounts(1000, m)})
	want := hosts(40)
	if err := adjustAndApply(t, p, &plan.Changes{Create: want}); err != nil {
		t.Fatalf("ApplyChanges: %v", err)
	}
	recs := dumpZone(emu, "example.com")
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Name]++
	}
	if len(recs) != len(want) || len(seen) != len(want) {
		t.Fatalf("%d records for %d names, want %d once each", len(recs), len(seen), len(want))
	}
	c := emu.Counters()
	if c.Throttled == 0 || m.count() != c.Throttled {
		t.Errorf("emulator answered %d 429s, the metric counted %d", c.Throttled, m.count())
	}
	t.Logf("40 records in batches of 5 at 4 req/s: %d calls, %d throttled", c.Total, c.Throttled)
}

// One budget per account: instances with the same credentials and endpoint share it, others do not.
func TestOneBudgetPerAccount(t *testing.T) {
	as := newAccounts(4, nil)
	mk := func(getenv func(string) string) *Provider {
		p, err := New(Config{Getenv: getenv, Accounts: as})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := mk(env("http://127.0.0.1:1/client/v4/"))
	b := mk(env("http://127.0.0.1:1/client/v4/"))
	c := mk(env("http://127.0.0.1:1/client/v4/", envAPIToken, "other"))
	d := mk(env("http://127.0.0.1:2/client/v4/"))
	if a.account != b.account {
		t.Error("two instances of one account have two budgets")
	}
	if a.account == c.account || a.account == d.account {
		t.Error("another token or endpoint shares the budget")
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for h, want := range map[[2]string]time.Duration{
		{"Retry-After", "3"}:                             3 * time.Second,
		{"Retry-After", "0.5"}:                           500 * time.Millisecond,
		{"Retry-After-Ms", "250"}:                        250 * time.Millisecond,
		{"Retry-After", "Thu, 01 Jan 2026 00:00:10 GMT"}: 10 * time.Second,
		{"Retry-After", "soon"}:                          defaultRetryAfter,
		{"Retry-After", "99999"}:                         maxRetryAfter,
	} {
		hdr := http.Header{}
		hdr.Set(h[0], h[1])
		if got := retryAfter(hdr, now); got != want {
			t.Errorf("%s: %s → %v, want %v", h[0], h[1], got, want)
		}
	}
}

// The controller's loop meets a window of hard throttling (the emulator at 1 request per second for
// 3 s, answering 429 with Retry-After) while it publishes 100 records (200 with their ownership TXTs,
// in batches of 10) from an account allowed 20 per second: the process does not stop, every record
// arrives exactly once, each 429 is counted in the metrics, and afterwards the rate recovers to the
// maximum.
func TestThrottleWindowConvergesAndRateRecovers(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	m := &countingMetrics{}
	p := newTestProvider(t, base, Config{BatchChangeSize: 10, Accounts: newAccounts(20, m)})
	if err := emu.SetRateLimitFor(1, 1, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	want := hosts(100)
	for _, e := range want {
		e.WithLabel(endpoint.ResourceLabelKey, "service/default/"+strings.Split(e.DNSName, ".")[0])
	}
	providertest.RunController(t, p, controller.Settings{Interval: 300 * time.Millisecond, ProviderCacheTime: time.Hour}, want...)
	took := waitFor(t, "100 records published through the throttling window", time.Minute, func() bool {
		return countType(emu, "A") == 100 && countType(emu, "TXT") == 100
	})
	seen := map[string]int{}
	for _, r := range dumpZone(emu, "example.com") {
		seen[r.Type+" "+r.Name]++
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s published %d times", k, n)
		}
	}
	c := emu.Counters()
	if c.Throttled == 0 || m.count() != c.Throttled {
		t.Errorf("emulator answered %d 429s, the metrics counted %d", c.Throttled, m.count())
	}
	low := m.currentRate()
	zs, _, err := p.state(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	for range 60 {
		if _, err := p.recordCount(testCtx(t), zs[0]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("converged in %s: %d calls, %d throttled; rate %.1f/s after the sync, %.1f/s after 60 more calls",
		took.Round(100*time.Millisecond), c.Total, c.Throttled, low, m.currentRate())
	if m.currentRate() != 20 {
		t.Errorf("the rate did not recover: %.2f/s, want 20", m.currentRate())
	}
}

func countType(emu *cloudflareemu.Server, typ string) int {
	n := 0
	for _, r := range dumpZone(emu, "example.com") {
		if r.Type == typ {
			n++
		}
	}
	return n
}
