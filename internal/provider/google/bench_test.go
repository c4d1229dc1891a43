package google

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// TestBenchmarkFigures measures what docs/benchmarks.md reports for Google (set
// ZONEKEEPER_BENCH=1): 2,000 hostnames (an A and its ownership TXT each) published from scratch with
// the defaults (Changes of 1,000, 1 s between two, 10 requests/s), then one changed hostname in steady
// state (the sync's listing and its write), and one idle sync (the listing alone), whose calls times 60
// are an idle hour at the default --interval of 1m. Calls are counted by the emulator (default page
// size 1,000).
func TestBenchmarkFigures(t *testing.T) {
	if os.Getenv("ZONEKEEPER_BENCH") == "" {
		t.Skip("set ZONEKEEPER_BENCH=1")
	}
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	p := newTestProvider(t, base, key, Config{BatchChangeInterval: DefaultBatchChangeInterval, Budgets: newBudgets(DefaultRequestsPerSecond, nil)})
	ctx := testCtx(t)
	var eps []*endpoint.Endpoint
	for i := range 2000 {
		eps = append(eps, ep(fmt.Sprintf("host%d.example.com", i), "A", 300, fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)),
			ep(fmt.Sprintf("a-host%d.example.com", i), "TXT", 300, `"heritage=external-dns,external-dns/owner=bench"`))
	}
	emu.ClearCalls()
	start := time.Now()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: eps}); err != nil {
		t.Fatal(err)
	}
	c := emu.Counters()
	t.Logf("from scratch: %d record sets in %v, calls %v (total %d, token included)", len(eps), time.Since(start).Round(10*time.Millisecond), c.Calls, c.Total)

	emu.ClearCalls()
	cur, err := p.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var old *endpoint.Endpoint
	for _, e := range cur {
		if e.DNSName == "host7.example.com" {
			old = e
		}
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{old}, UpdateNew: []*endpoint.Endpoint{ep("host7.example.com", "A", 300, "192.0.2.7")}}); err != nil {
		t.Fatal(err)
	}
	c = emu.Counters()
	t.Logf("one change in steady state: calls %v (total %d)", c.Calls, c.Total)

	emu.ClearCalls()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	c = emu.Counters()
	t.Logf("one idle sync: calls %v (total %d); an idle hour at --interval=1m: %d", c.Calls, c.Total, 60*c.Total)
}
