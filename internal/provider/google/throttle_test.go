package google

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
)

// throttleCounter is the metrics interface the kind reports to (pacing.Metrics).
type throttleCounter struct {
	mu    sync.Mutex
	n     map[string]int
	calls map[string]int
	rates []float64
}

func (c *throttleCounter) APICall(provider, zone, call string, throttled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n, c.calls = map[string]int{}, map[string]int{}
	}
	c.calls[call]++
	if throttled {
		c.n[provider]++
	}
}

func (c *throttleCounter) APIRate(_, _ string, perSecond float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rates = append(c.rates, perSecond)
}

func (c *throttleCounter) count(p string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[p]
}

// A 429 rateLimitExceeded (Cloud DNS sends no Retry-After) pauses the project for 1 s before the
// request goes again, as a retry of the provider's own (the generated client does not retry), and is
// counted in the metric.
func TestThrottleIsWaitedOut(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	m := &throttleCounter{}
	p := newTestProvider(t, base, key, Config{Budgets: newBudgets(1000, m)})
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(googlednsemu.Fault{Operation: googlednsemu.OpChangesPost, Status: 429, Count: 1}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := applyCreates(t, p, ep("www.example.com", "A", 300, "192.0.2.1")); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("the change went again after %v, want a pause of 1 s", d)
	}
	if m.count("google") != 1 || p.budget.Throttles() != 1 || emu.Counters().Calls[googlednsemu.OpChangesPost] != 2 {
		t.Fatalf("metric %d, throttles %d, changes %d", m.count("google"), p.budget.Throttles(), emu.Counters().Calls[googlednsemu.OpChangesPost])
	}
	if setsOf(emu, "pub")["www.example.com. A"] != "300 192.0.2.1" {
		t.Fatal("the record was not written")
	}
}

// Against an emulator that allows 4 requests per second while the budget allows 1000, 300 names in
// Changes of 20 converge in one sync: every set present once, the 429s counted.
func TestConvergesUnderRateLimit(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	m := &throttleCounter{}
	p := newTestProvider(t, base, key, Config{Budgets: newBudgets(1000, m), BatchChangeSize: 20})
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := emu.SetRateLimit(4, 1); err != nil {
		t.Fatal(err)
	}
	var eps []*endpoint.Endpoint
	for i := range 150 {
		eps = append(eps, ep(fmt.Sprintf("h%d.example.com", i), "A", 300, fmt.Sprintf("10.0.0.%d", i+1)),
			ep(fmt.Sprintf("a-h%d.example.com", i), "TXT", 300, `"heritage=external-dns,external-dns/owner=z"`))
	}
	if err := applyCreates(t, p, eps...); err != nil {
		t.Fatal(err)
	}
	if n := len(dumpZone(emu, "pub")); n != 300+2 {
		t.Fatalf("%d sets, want 302", n)
	}
	c := emu.Counters()
	if c.Throttled == 0 || m.count("google") != c.Throttled {
		t.Fatalf("emulator throttled %d, metric %d", c.Throttled, m.count("google"))
	}
	t.Logf("%d changes sent, %d answered 429, %d calls in all", c.Calls[googlednsemu.OpChangesPost], c.Throttled, c.Total)
	// The shared pacing metrics: every attempt by call, as the emulator counted them, and the rate
	// lowered by the 429s (from the budget's 1000 requests/s).
	m.mu.Lock()
	defer m.mu.Unlock()
	for call, op := range map[string]string{"changes.create": googlednsemu.OpChangesPost, "resourceRecordSets.list": googlednsemu.OpRRSetsList,
		"changes.list": googlednsemu.OpChangesList, "managedZones.list": googlednsemu.OpZonesList} {
		if m.calls[call] != c.Calls[op] {
			t.Errorf("metric calls %s = %d, emulator %s = %d", call, m.calls[call], op, c.Calls[op])
		}
	}
	if len(m.rates) < 2 || m.rates[0] != 1000 || slices.Min(m.rates) >= 1000 {
		t.Errorf("rates reported %v: want 1000 first, then lowered", m.rates)
	}
}
