package controller

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// BenchmarkIdleResync is the cost of one full resync when nothing changed since the last one: what
// Run does on its --interval tick (refreshProvider, then RunOnce), with --provider-cache-time set so
// that the registry answers from its cache. The sources' endpoints, the cached records and the plan over
// everything; nothing is sent. cpu-s/op is user+system CPU of the whole process per resync, the
// garbage collector's background work included.
//
// relist=every is the default flags with a provider that has no zone probe (the inmemory one): every
// resync lists the provider again (the registry's cache lives max(--interval, --provider-cache-time)).
// sources=counted is as under Run, where the controller counts the sources' events: with none since
// the last listing, the sources are not listed again (idle_source.go). Without it, as in RunOnce
// alone, every resync lists them.
func BenchmarkIdleResync(b *testing.B) {
	for _, bc := range []struct {
		n       int
		relist  bool
		counted bool
	}{{1000, false, false}, {10000, false, false}, {100000, false, false}, {1000, true, false}, {10000, true, false}, {100000, true, false},
		{1000, false, true}, {10000, false, true}, {100000, false, true}, {1000, true, true}, {10000, true, true}, {100000, true, true}} {
		n := bc.n
		name := fmt.Sprintf("endpoints=%d", n)
		if bc.relist {
			name += "/relist=every"
		}
		if bc.counted {
			name += "/sources=counted"
		}
		b.Run(name, func(b *testing.B) {
			eps := make([]*endpoint.Endpoint, n)
			for i := range eps {
				eps[i] = a(fmt.Sprintf("host-%d.example.com", i), fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255+1), fmt.Sprintf("ingress/default/app-%d", i))
			}
			src := &listSource{eps: eps}
			reg, err := txt.New(inmemory.New("example.com"), txt.Config{OwnerID: "bench", CacheInterval: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			settings := Settings{OwnerID: "bench", Policy: plan.PolicySync, ProviderCacheTime: time.Hour}
			if bc.relist {
				settings.ProviderCacheTime = 0
			}
			c := New(src, reg, settings, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if bc.counted {
				c.sourceEvents()
			}
			ctx := context.Background()
			if _, err := c.RunOnce(ctx); err != nil { // initial sync
				b.Fatal(err)
			}
			c.Resync() // as Run does at its start; the resyncs then trust the cache for ProviderCacheTime
			if _, err := c.RunOnce(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU(b)
			for i := 0; i < b.N; i++ {
				c.refreshProvider(ctx)
				out, err := c.RunOnce(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if out.Changes.HasChanges() {
					b.Fatalf("idle resync %d planned %d changes", i, out.Changes.Len())
				}
			}
			b.StopTimer()
			b.ReportMetric((processCPU(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// processCPU is the user+system CPU time the process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
