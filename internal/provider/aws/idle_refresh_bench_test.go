package aws

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// ownedZone is n hostnames in zone, each an A record and its ownership TXT, as external-dns and
// zonekeeper write them for owner "bench": 2n record sets (2n+2 with the SOA and NS).
func ownedZone(zone string, n int) route53emu.SeedZone {
	z := route53emu.SeedZone{Name: zone, Records: make([]route53emu.RecordSet, 0, 2*n)}
	for i := range n {
		name := fmt.Sprintf("app%d.%s.", i, zone)
		z.Records = append(z.Records,
			route53emu.RecordSet{Name: name, Type: "A", TTL: num(300), ResourceRecords: values(fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256))},
			route53emu.RecordSet{Name: name, Type: "TXT", TTL: num(300), ResourceRecords: values(
				fmt.Sprintf(`"heritage=external-dns,external-dns/owner=bench,external-dns/resource=ingress/default/app%d"`, i))})
	}
	return z
}

// BenchmarkIdleRegistryRefresh40000 is the registry's share of an idle --interval resync at 20,000
// Ingresses (issue 15, "idle cost"): the TXT registry's Refresh over the Route 53 provider, whose cache
// holds the zone's 40,002 record sets and nothing changed since the last resync. The registry's cache
// interval is 1 ns, so that every Refresh is due, as at each resync (--interval is longer than the
// registry's cache). probe+refresh adds what the controller does before it: the zone probe through
// the SDK (one GetHostedZone against the emulator). Run:
//
//	go test -run '^$' -bench 'IdleRegistryRefresh40000' -benchmem -benchtime 50x ./internal/provider/aws/
func BenchmarkIdleRegistryRefresh40000(b *testing.B) {
	for _, probe := range []bool{false, true} {
		name := "refresh"
		if probe {
			name = "probe+refresh"
		}
		b.Run(name, func(b *testing.B) {
			staticCredentials(b)
			srv, url := emulator(b, route53emu.Options{})
			seed(b, srv, ownedZone(budgetZone, 20000))
			p := newProvider(b, url, Config{})
			reg, err := txt.New(p, txt.Config{OwnerID: "bench", CacheInterval: time.Nanosecond})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if eps, err := reg.Records(ctx); err != nil || len(eps) != 20000 {
				b.Fatalf("Records = %d records, %v", len(eps), err)
			}
			if err := reg.Refresh(ctx); err != nil { // the first resync after a listing
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if probe {
					if stale, err := reg.CheckZones(ctx, 24*time.Hour); err != nil || len(stale) > 0 {
						b.Fatalf("CheckZones = %v, %v", stale, err)
					}
				}
				if err := reg.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIdleResync20000Ingresses is the whole idle --interval resync at 20,000 Ingresses over
// Route 53 (40,002 record sets in one zone, written by the first reconcile): the zone probe through
// the SDK, then the controller's reconcile, which refreshes the registry (due: its cache interval of
// 1 ms has passed) and skips the plan as nothing changed. The sources' endpoints are a static list
// (their generation is not measured here). cpu-s/op is the process's user+system CPU per resync, the
// garbage collector's and the in-process emulator's included. Run:
//
//	go test -run '^$' -bench 'IdleResync20000Ingresses' -benchmem -benchtime 20x ./internal/provider/aws/
func BenchmarkIdleResync20000Ingresses(b *testing.B) {
	staticCredentials(b)
	srv, url := emulator(b, route53emu.Options{})
	seed(b, srv, route53emu.SeedZone{Name: budgetZone})
	p := newProvider(b, url, Config{EvaluateTargetHealth: true})
	reg, err := txt.New(p, txt.Config{OwnerID: "bench", CacheInterval: time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	filter, _ := plan.NewDomainFilter([]string{budgetZone}, nil, "", "")
	ctrl := controller.New(&staticSource{eps: ingressHosts(20000)}, reg,
		controller.Settings{OwnerID: "bench", Policy: plan.PolicySync, DomainFilter: filter, Interval: time.Minute}, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	resync := func() controller.Outcome {
		if stale, err := reg.CheckZones(ctx, 24*time.Hour); err != nil || len(stale) > 0 {
			b.Fatalf("CheckZones = %v, %v", stale, err)
		}
		out, err := ctrl.RunOnce(ctx)
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	for i := 0; ; i++ { // converge, then two idle resyncs
		time.Sleep(2 * time.Millisecond)
		if out := resync(); !out.Changes.HasChanges() && i >= 2 {
			break
		} else if i > 10 {
			b.Fatalf("not converged after %d reconciles", i)
		}
	}
	if n := len(dump(srv, budgetZone)); n != 40000 {
		b.Fatalf("the zone holds %d record sets, want 40,000", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpu() // over the whole loop: the collector finishes a resync's garbage during the sleeps
	for range b.N {
		b.StopTimer()
		time.Sleep(2 * time.Millisecond) // the registry's cache interval passes, as --interval does
		b.StartTimer()
		if out := resync(); out.Changes.HasChanges() {
			b.Fatalf("an idle resync planned %d changes", out.Changes.Len())
		}
	}
	b.ReportMetric((cpu()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkIdleRelistUnchanged is the paced full relisting of an idle zone (issue 15): the TXT
// registry's CheckZones with the relisting due (relist 1 ns), then its Refresh, over a zone of 2n+2
// record sets that nothing changed. registry-lists/op counts the provider's Records calls the
// registry makes per relisting (each a conversion and a hash of the whole cache). Run:
//
//	go test -run '^$' -bench 'IdleRelistUnchanged' -benchmem -benchtime 20x ./internal/provider/aws/
func BenchmarkIdleRelistUnchanged(b *testing.B) {
	for _, hosts := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("sets=%d", 2*hosts+2), func(b *testing.B) {
			staticCredentials(b)
			srv, url := emulator(b, route53emu.Options{})
			seed(b, srv, ownedZone(budgetZone, hosts))
			p := newProvider(b, url, Config{})
			c := &listCounter{Wrapped: provider.Wrapped{Provider: p}}
			reg, err := txt.New(c, txt.Config{OwnerID: "bench", CacheInterval: time.Nanosecond})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if eps, err := reg.Records(ctx); err != nil || len(eps) != hosts {
				b.Fatalf("Records = %d records, %v", len(eps), err)
			}
			if err := reg.Refresh(ctx); err != nil { // the first resync after a listing
				b.Fatal(err)
			}
			b.ReportAllocs()
			lists := c.count()
			b.ResetTimer()
			for range b.N {
				if _, err := reg.CheckZones(ctx, time.Nanosecond); err != nil {
					b.Fatal(err)
				}
				if err := reg.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			// The resync after the last one, which confirms its listing when the version moved.
			if err := reg.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(c.count()-lists)/float64(b.N), "registry-lists/op")
		})
	}
}
