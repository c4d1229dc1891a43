package azure

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// benchHosts is the size of the benchmarks' zone: 2,000 hostnames, each an A set and its registry TXT.
const benchHosts = 2000

// armCalls are the emulator's ARM calls (the login's are not ARM's).
func armCalls(c azurednsemu.Counters) int {
	return c.Total - c.Calls[azurednsemu.OpAADInstanceDiscovery] - c.Calls[azurednsemu.OpAADOpenIDConfiguration] - c.Calls[azurednsemu.OpAADToken]
}

// An idle hour of a zone of 4,002 record sets (2,000 hostnames with their TXT, SOA, NS), as the
// controller drives the provider at the default --interval of 1 m and --provider-cache-time unset: each
// resync probes (CheckZones) and lists what it dropped (Records). The clock is simulated, the calls are
// real (the emulator, pages of 100). "before" is the resync without the probe: every zone listed again.
//
//	go test -run '^$' -bench BenchmarkIdleHour -benchtime 1x ./internal/provider/azure/
func BenchmarkIdleHour(b *testing.B) {
	emu, client, path := emulator(b, azurednsemu.Options{})
	var sets []azurednsemu.SeedRecordSet
	for i := range benchHosts {
		sets = append(sets, azurednsemu.SeedRecordSet{Name: fmt.Sprintf("h%d", i), Type: "A", TTL: 300, Records: []string{"10.0.0.1"}},
			azurednsemu.SeedRecordSet{Name: fmt.Sprintf("a-h%d", i), Type: "TXT", TTL: 300, Records: []string{`"heritage=external-dns,external-dns/owner=zk"`}})
	}
	if err := emu.Seed(azurednsemu.Seed{Subscriptions: []azurednsemu.SeedSubscription{{ID: testSub, ResourceGroups: []azurednsemu.SeedResourceGroup{{Name: testRG,
		Zones: []azurednsemu.SeedZone{{Name: "example.com", RecordSets: sets}}}}}}}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for range b.N {
		for _, probe := range []bool{true, false} {
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			p := newTestProviderB(b, client, path, Config{Now: func() time.Time { return now }})
			if _, err := p.Records(ctx); err != nil {
				b.Fatal(err)
			}
			emu.ClearCalls()
			for range 60 {
				now = now.Add(time.Minute)
				if probe {
					if _, err := p.CheckZones(ctx, 0); err != nil {
						b.Fatal(err)
					}
				} else {
					p.Invalidate()
				}
				if _, err := p.Records(ctx); err != nil {
					b.Fatal(err)
				}
			}
			c := emu.Counters()
			name := "calls/idle-hour"
			if !probe {
				name = "calls/idle-hour-before"
			}
			b.ReportMetric(float64(armCalls(c)), name)
			b.Logf("%s: %d calls %v", name, armCalls(c), c.Calls)
		}
	}
}

// A first sync of 2,000 hostnames (4,000 PUTs, A and TXT) into an empty zone at ARM's documented write
// rate (200 at once, then 10/s), the emulator not throttling: the time and the calls. About 6.5 minutes.
//
//	go test -run '^$' -bench BenchmarkFirstSync -benchtime 1x -timeout 20m ./internal/provider/azure/
func BenchmarkFirstSync(b *testing.B) {
	for range b.N {
		emu, client, path := emulator(b, azurednsemu.Options{})
		if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
			b.Fatal(err)
		}
		p := newTestProviderB(b, client, path, Config{})
		ctx := context.Background()
		start := time.Now()
		if _, err := p.Records(ctx); err != nil {
			b.Fatal(err)
		}
		var eps []*endpoint.Endpoint
		for i := range benchHosts {
			eps = append(eps, endpoint.NewWithTTL(fmt.Sprintf("h%d.example.com", i), "A", 300, "10.0.0.1"),
				endpoint.NewWithTTL(fmt.Sprintf("a-h%d.example.com", i), "TXT", 300, "heritage=external-dns,external-dns/owner=zk"))
		}
		if err := p.ApplyChanges(ctx, &plan.Changes{Create: eps}); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		c := emu.Counters()
		b.ReportMetric(took.Seconds(), "s/sync")
		b.ReportMetric(float64(armCalls(c)), "calls/sync")
		b.Logf("2,000 hostnames: %s, %d calls %v, %d answered 429", took.Round(time.Second), armCalls(c), c.Calls, c.Throttled)
	}
}
