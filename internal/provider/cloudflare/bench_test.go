package cloudflare

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// twoThousand is 2,000 hostnames with their registry TXT records: 4,000 records.
func twoThousand() []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for i := 0; i < 2000; i++ {
		name := fmt.Sprintf("h%d.example.com", i)
		out = append(out, ep(name, "A", 0, fmt.Sprintf("10.%d.%d.1", i/250, i%250)),
			ep("a-"+name, "TXT", 0, `"heritage=external-dns,external-dns/owner=bench,external-dns/resource=service/default/s"`))
	}
	return out
}

func benchProvider(b *testing.B, emu *cloudflareemu.Server, base string) *Provider {
	p, err := New(Config{Getenv: env(base), Accounts: newAccounts(1e6, nil)})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func benchEmulator(b *testing.B) (*cloudflareemu.Server, string, func()) {
	emu := cloudflareemu.New(cloudflareemu.Options{})
	srv := newServer(emu)
	if _, err := emu.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com"}}}); err != nil {
		b.Fatal(err)
	}
	return emu, srv.URL + cloudflareemu.APIPrefix, srv.Close
}

// Publishing 2,000 hostnames (4,000 records) into an empty zone: requests per sync (the lower limit
// is 20 batches of 200 + 1 zone listing + 1 record listing) and time against the in-process emulator,
// without --batch-change-interval's pauses (19 s more with its default of 1 s).
func BenchmarkPublish2000FromScratch(b *testing.B) {
	desired := twoThousand()
	var calls int
	for b.Loop() {
		b.StopTimer()
		emu, base, stop := benchEmulator(b)
		p := benchProvider(b, emu, base)
		adjusted, _ := p.AdjustEndpoints(context.Background(), desired)
		b.StartTimer()
		if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: adjusted}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		calls = emu.Counters().Total
		if n := len(emu.Dump()[0].Records); n != 4000 {
			b.Fatalf("%d records", n)
		}
		stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(calls), "requests/sync")
}

// One changed record set in a zone of 4,000 records, in steady state (the records tracked since the
// last listing): requests per change.
func BenchmarkOneChangeSteadyState(b *testing.B) {
	emu, base, stop := benchEmulator(b)
	defer stop()
	p := benchProvider(b, emu, base)
	desired, _ := p.AdjustEndpoints(context.Background(), twoThousand())
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: desired}); err != nil {
		b.Fatal(err)
	}
	cur := desired[0]
	emu.ClearCalls()
	n := 0
	for b.Loop() {
		next := cur.DeepCopy()
		next.Targets = endpoint.Targets{fmt.Sprintf("192.0.2.%d", n%250+1)}
		n++
		if err := p.ApplyChanges(context.Background(), &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur}, UpdateNew: []*endpoint.Endpoint{next}}); err != nil {
			b.Fatal(err)
		}
		cur = next
	}
	b.ReportMetric(float64(emu.Counters().Total)/float64(n), "requests/change")
}

// The full listing of a zone of 4,000 records: requests per listing at the default page size and at
// the largest. Before the zone probe every --interval (1m) was one, so an idle hour was 60 of them.
func BenchmarkIdleListing(b *testing.B) {
	for _, perPage := range []int{DefaultRecordsPerPage, MaxRecordsPerPage} {
		b.Run(fmt.Sprintf("per-page=%d", perPage), func(b *testing.B) {
			emu, base, stop := benchEmulator(b)
			defer stop()
			p := benchProvider(b, emu, base)
			desired, _ := p.AdjustEndpoints(context.Background(), twoThousand())
			if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: desired}); err != nil {
				b.Fatal(err)
			}
			p.cfg.RecordsPerPage = perPage
			emu.ClearCalls()
			n := 0
			for b.Loop() {
				p.Invalidate() // a full listing, not the cache
				if _, err := p.Records(context.Background()); err != nil {
					b.Fatal(err)
				}
				n++
			}
			per := float64(emu.Counters().Total) / float64(n)
			b.ReportMetric(per, "requests/listing")
			b.ReportMetric(per*60, "requests/idle-hour")
		})
	}
}

// An idle hour at --interval=1m with the zone probe, the zone of 4,000 records and the default page
// size: at each of the 60 resyncs the controller asks CheckZones (relist 0: the budget-derived
// period), then Records, which lists only what CheckZones dropped. The clock is simulated.
func BenchmarkIdleHourWithProbe(b *testing.B) {
	emu, base, stop := benchEmulator(b)
	defer stop()
	p := benchProvider(b, emu, base)
	p.account.max = DefaultRequestsPerSecond // the relisting period is derived from the account's rate
	desired, _ := p.AdjustEndpoints(context.Background(), twoThousand())
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: desired}); err != nil {
		b.Fatal(err)
	}
	clock := time.Now()
	p.now = func() time.Time { return clock }
	var perHour, probes, relists float64
	for b.Loop() {
		emu.ClearCalls()
		relists = 0
		for range 60 {
			clock = clock.Add(time.Minute)
			stale, err := p.CheckZones(context.Background(), 0)
			if err != nil {
				b.Fatal(err)
			}
			if len(stale) > 0 {
				relists++
			}
			if _, err := p.Records(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		c := emu.Counters()
		perHour = float64(c.Total)
		probes = 0
		for _, call := range emu.Calls() {
			if call.Operation == cloudflareemu.OpRecordsList && strings.Contains(call.Query, "per_page=5") {
				probes++
			}
		}
	}
	b.ReportMetric(perHour, "requests/idle-hour")
	b.ReportMetric(probes, "probes/idle-hour")
	b.ReportMetric(relists, "relistings/idle-hour")
}

// Publishing 2,000 hostnames (4,000 records) against the emulator limited to Cloudflare's documented
// rate (1,200 per 5 minutes = 4/s, burst 1) from an account paced at the default 4/s: requests, 429s
// and wall time per sync, with --batch-change-interval at its default (1 s, external-dns's) and at 0.
func BenchmarkPublish2000AtTheAccountRate(b *testing.B) {
	for _, pause := range []time.Duration{time.Second, 0} {
		b.Run(fmt.Sprintf("batch-change-interval=%s", pause), func(b *testing.B) {
			desired := twoThousand()
			var calls, throttled int
			var took time.Duration
			for b.Loop() {
				b.StopTimer()
				emu, base, stop := benchEmulator(b)
				if err := emu.SetRateLimit(cloudflareemu.DefaultRateLimit, 1); err != nil {
					b.Fatal(err)
				}
				p, err := New(Config{Getenv: env(base), Accounts: newAccounts(DefaultRequestsPerSecond, nil), BatchChangeInterval: pause})
				if err != nil {
					b.Fatal(err)
				}
				adjusted, _ := p.AdjustEndpoints(context.Background(), desired)
				b.StartTimer()
				start := time.Now()
				if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: adjusted}); err != nil {
					b.Fatal(err)
				}
				took = time.Since(start)
				b.StopTimer()
				c := emu.Counters()
				calls, throttled = c.Total, c.Throttled
				if n := len(emu.Dump()[0].Records); n != 4000 {
					b.Fatalf("%d records", n)
				}
				stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(calls), "requests/sync")
			b.ReportMetric(float64(throttled), "429s/sync")
			b.ReportMetric(took.Seconds(), "s/sync")
		})
	}
}
