package azure

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// Writes draw from the write bucket: its burst goes at once, the rest at its rate.
func TestWritesArePacedByTheirBucket(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{Rates: Rates{WritesPerSecond: 20, WriteBurst: 10}})
	ctx := context.Background()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	var eps []*endpoint.Endpoint
	for i := range 30 {
		eps = append(eps, endpoint.NewWithTTL(fmt.Sprintf("h%d.example.com", i), "A", 60, "10.0.0.1"))
	}
	start := time.Now()
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: eps}); err != nil {
		t.Fatal(err)
	}
	// 10 at once, 20 more at 20/s: about 1 s.
	if d := time.Since(start); d < 900*time.Millisecond || d > 5*time.Second {
		t.Fatalf("30 writes at 20/s with a burst of 10 took %s, want about 1 s", d)
	}
	if r := p.budget.read; r.Max() != ReadsPerSecond || r.Burst() != ReadBurst {
		t.Fatalf("read bucket %v/s burst %d, want ARM's documented %d/s burst %d", r.Max(), r.Burst(), ReadsPerSecond, ReadBurst)
	}
}

// Once the first write is sent, the emulator answers every call 429 with Retry-After: 1 for 2 s while the controller publishes 150
// hostnames (300 record sets with their ownership TXTs): the sync converges with every set present
// once and no exit, every 429 is counted in the metrics (azcore's retries pass through the budget),
// and the write rate, halved by the 429s, recovers.
func TestConvergesThroughAThrottleWindow(t *testing.T) {
	for _, c := range []struct {
		window     time.Duration
		maxRetries int
	}{{2 * time.Second, 3}, {5 * time.Second, 1}} {
		t.Run(fmt.Sprintf("window %s, %d retries", c.window, c.maxRetries), func(t *testing.T) { convergesThrough(t, c.window, c.maxRetries) })
	}
}

// convergesThrough is TestConvergesThroughAThrottleWindow for one window; a window longer than
// azcore's retries fails writes, which the controller retries.
func convergesThrough(t *testing.T, window time.Duration, maxRetries int) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	m := newCallCounter()
	p := newTestProvider(t, client, path, Config{Metrics: m, MaxRetries: maxRetries, Rates: Rates{WritesPerSecond: 200, WriteBurst: 20}})
	if _, err := p.Records(context.Background()); err != nil { // the login, before the window
		t.Fatal(err)
	}
	p.Invalidate()
	m.reset()
	emu.ClearCalls()
	const n = 150
	var eps []*endpoint.Endpoint
	for i := range n {
		eps = append(eps, endpoint.NewWithTTL(fmt.Sprintf("h%d.example.com", i), "A", 300, fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)).
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/h%d", i)))
	}
	start := time.Now()
	providertest.RunController(t, p, controller.Settings{Interval: 500 * time.Millisecond}, eps...)
	// The window opens at the first write, after the run's listing.
	for emu.Counters().Calls[azurednsemu.OpRecordSetsCreateOrUpdate] == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := emu.AddFault(azurednsemu.Fault{Status: 429, RetryAfter: 1, Duration: window}); err != nil {
		t.Fatal(err)
	}
	sets := func() []azurednsemu.RecordSetDump {
		for _, z := range emu.Dump() {
			if z.Name == "example.com" {
				return z.RecordSets
			}
		}
		return nil
	}
	for len(sets()) < 2*n+2 {
		if time.Since(start) > time.Minute {
			t.Fatalf("%d sets after %s, want %d", len(sets()), time.Since(start), 2*n+2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("converged in %s", time.Since(start).Round(10*time.Millisecond))
	time.Sleep(time.Second) // a resync or two more: nothing must change
	seen := map[string]int{}
	for _, rs := range sets() {
		seen[rs.Name+" "+rs.Type]++
		if rs.Type == "A" && len(rs.Records) != 1 {
			t.Errorf("%s A holds %v, want one address", rs.Name, rs.Records)
		}
	}
	if len(seen) != 2*n+2 {
		t.Errorf("%d distinct sets, want %d", len(seen), 2*n+2)
	}
	c := emu.Counters()
	if c.Throttled == 0 || m.totalThrottles() != c.Throttled {
		t.Fatalf("emulator answered %d 429s, the metrics counted %d", c.Throttled, m.totalThrottles())
	}
	if got := m.get("azure/example.com/RecordSets_CreateOrUpdate"); got != c.Calls[azurednsemu.OpRecordSetsCreateOrUpdate] {
		t.Errorf("metric RecordSets_CreateOrUpdate %d, emulator %d", got, c.Calls[azurednsemu.OpRecordSetsCreateOrUpdate])
	}
	w := p.budget.write
	if w.Throttles() == 0 {
		t.Fatal("the write bucket saw no 429")
	}
	if w.Rate() != w.Max() {
		t.Errorf("write rate %v after the window and %d writes, want it back at %v", w.Rate(), c.Calls[azurednsemu.OpRecordSetsCreateOrUpdate], w.Max())
	}
	t.Logf("%d calls, %d answered 429 (read bucket %d, write bucket %d)", c.Total, c.Throttled, p.budget.read.Throttles(), w.Throttles())
}

// When azcore's retries of a 429 are spent, the rest of the changes are rejected unsent, and the TXT
// creates went first: no record is left without its ownership TXT, and the throttled account is not
// sent more calls.
func TestThrottledWritesStopAndKeepOwnershipFirst(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{MaxRetries: 0})
	ctx := context.Background()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(azurednsemu.Fault{Operation: azurednsemu.OpRecordSetsCreateOrUpdate, Status: 429, RetryAfter: 1, Count: 1}); err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	create := []*endpoint.Endpoint{
		endpoint.NewWithTTL("x.example.com", "A", 60, "10.0.0.1"), endpoint.NewWithTTL("a-x.example.com", "TXT", 60, "owner"),
		endpoint.NewWithTTL("y.example.com", "A", 60, "10.0.0.2"), endpoint.NewWithTTL("a-y.example.com", "TXT", 60, "owner")}
	err := p.ApplyChanges(ctx, &plan.Changes{Create: create})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 4 {
		t.Fatalf("apply: %v, want all four rejected", err)
	}
	if c := emu.Counters(); c.Calls[azurednsemu.OpRecordSetsCreateOrUpdate] != 1 {
		t.Fatalf("calls %v: want the one throttled PUT and no other", c.Calls)
	}
	if rs := recordSetOf(emu, "example.com", "a-x", "TXT"); rs != nil {
		t.Fatalf("the throttled TXT was written: %+v", rs)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: create}); err != nil {
		t.Fatal(err)
	}
	calls := emu.Calls()
	var order []string
	for _, c := range calls {
		if c.Operation == azurednsemu.OpRecordSetsCreateOrUpdate {
			order = append(order, c.Path)
		}
	}
	if len(order) != 5 || !strings.Contains(order[1], "/TXT/") || !strings.Contains(order[2], "/TXT/") || !strings.Contains(order[3], "/A/") {
		t.Fatalf("PUTs %v: want the TXT sets first", order)
	}
}
