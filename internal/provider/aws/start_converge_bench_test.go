package aws

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// plannedRuns counts the controller's runs that made a plan ("Changes applied", or "All records are
// already up to date" with the names planned) and the names they planned (desired), not the runs
// its idle memo skipped ("replanned"=false).
type plannedRuns struct {
	mu           sync.Mutex
	plans, names int
}

func (h *plannedRuns) Enabled(context.Context, slog.Level) bool { return true }
func (h *plannedRuns) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *plannedRuns) WithGroup(string) slog.Handler            { return h }
func (h *plannedRuns) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "All records are already up to date" && r.Message != "Changes applied" {
		return nil
	}
	planned, desired := r.Message == "Changes applied", 0
	r.Attrs(func(a slog.Attr) bool {
		planned = planned || a.Key == "planned"
		if a.Key == "desired" {
			desired = int(a.Value.Int64())
		}
		return true
	})
	if planned {
		h.mu.Lock()
		h.plans++
		h.names += desired
		h.mu.Unlock()
	}
	return nil
}

func (h *plannedRuns) counts() (plans, names int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.plans, h.names
}

// BenchmarkStartConvergeIdle is what zonekeeper does over Route 53 from its start until it is idle
// (issue 15, the one-off full replan after start): the start's reconcile lists the empty zone and
// writes n hosts (an A and its ownership TXT each), the resync right after it plans everything once
// against the cache the writes patched (the registry's cache is still young) and leaves the idle
// memo, then idle resyncs, each after the registry's cache interval has passed (the zone probe and the
// controller's reconcile). Per op, over the idle resyncs: lists is the provider's Records calls the
// registry made (each a conversion of the provider's whole cache, then a new registry cache), plans
// the resyncs that planned, names the names they planned; cpu-s is the process's user+system CPU
// during the first idle resync and during each later one (the in-process emulator's included; the
// collector's only as far as it runs within the resync). ns/op is the idle resyncs' time. The registry's cache interval is longer than the
// start's reconcile at each size, as --interval (1m) is in the side by side. Run:
//
//	go test -run '^$' -bench 'StartConvergeIdle' -benchtime 1x ./internal/provider/aws/
func BenchmarkStartConvergeIdle(b *testing.B) {
	const idleResyncs = 5
	for _, tc := range []struct {
		hosts    int
		interval time.Duration
	}{{1000, time.Second}, {20000, 20 * time.Second}} {
		b.Run(fmt.Sprintf("hosts=%d", tc.hosts), func(b *testing.B) {
			var lists, plans, names int
			var first, rest time.Duration
			for range b.N {
				b.StopTimer()
				staticCredentials(b)
				srv, url := emulator(b, route53emu.Options{})
				seed(b, srv, route53emu.SeedZone{Name: budgetZone})
				p := newProvider(b, url, Config{EvaluateTargetHealth: true})
				c := &listCounter{Wrapped: provider.Wrapped{Provider: p}}
				reg, err := txt.New(exactForwarder{listCounter: c, writer: p}, txt.Config{OwnerID: "bench", CacheInterval: tc.interval})
				if err != nil {
					b.Fatal(err)
				}
				filter, _ := plan.NewDomainFilter([]string{budgetZone}, nil, "", "")
				runs := &plannedRuns{}
				ctrl := controller.New(&staticSource{eps: ingressHosts(tc.hosts)}, reg,
					controller.Settings{OwnerID: "bench", Policy: plan.PolicySync, DomainFilter: filter, Interval: time.Minute}, slog.New(runs))
				ctx := context.Background()
				resync := func() controller.Outcome {
					if _, err := reg.CheckZones(ctx, 24*time.Hour); err != nil {
						b.Fatal(err)
					}
					out, err := ctrl.RunOnce(ctx)
					if err != nil {
						b.Fatal(err)
					}
					return out
				}
				started := time.Now()
				if out := resync(); out.Changes.Len() != tc.hosts {
					b.Fatalf("the start changed %d records, want %d", out.Changes.Len(), tc.hosts)
				}
				if out := resync(); out.Changes.HasChanges() {
					b.Fatalf("the resync after the start changed %d record sets", out.Changes.Len())
				}
				if since := time.Since(started); since >= tc.interval {
					b.Fatalf("start and converging took %v, not shorter than the cache interval %v", since, tc.interval)
				}
				lists0 := c.count()
				plans0, names0 := runs.counts()
				for i := range idleResyncs {
					time.Sleep(tc.interval) // the registry's cache ages, as between two --interval resyncs
					cpu0 := cpu()
					b.StartTimer()
					if out := resync(); out.Changes.HasChanges() {
						b.Fatalf("an idle resync changed %d record sets", out.Changes.Len())
					}
					b.StopTimer()
					if i == 0 {
						first += cpu() - cpu0
					} else {
						rest += cpu() - cpu0
					}
				}
				p1, n1 := runs.counts()
				lists, plans, names = lists+c.count()-lists0, plans+p1-plans0, names+n1-names0
			}
			b.ReportMetric(float64(lists)/float64(b.N), "lists/op")
			b.ReportMetric(float64(plans)/float64(b.N), "plans/op")
			b.ReportMetric(float64(names)/float64(b.N), "names/op")
			b.ReportMetric(first.Seconds()/float64(b.N), "cpu-s/first-resync")
			b.ReportMetric(rest.Seconds()/float64(b.N*(idleResyncs-1)), "cpu-s/later-resync")
		})
	}
}
