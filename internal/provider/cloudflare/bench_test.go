package cloudflare

import (
	"context"
	"fmt"
	"testing"

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

// The listing of a zone of 4,000 records that the registry asks for once per --interval (1m): requests
// per listing at the default page size and at the largest; an idle hour is 60 of them.
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
