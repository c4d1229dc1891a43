package controller

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// BenchmarkEventReconcile is the cost of one event-driven reconcile once the zone is in sync: one
// object's address changed, the desired state read from the source, current state from the registry's
// cache (no provider listing), the plan over everything, and one update (record) sent. This is what
// bounds event-to-DNS latency on top of the debounce as an installation grows.
//
// guard=on adds the mass-change guard with its default flags (a pass over the owned records per zone).
func BenchmarkEventReconcile(b *testing.B) {
	for _, bc := range []struct {
		n     int
		guard bool
	}{{1000, false}, {10000, false}, {100000, false}, {100000, true}} {
		n := bc.n
		name := fmt.Sprintf("endpoints=%d", n)
		if bc.guard {
			name += "/guard=on"
		}
		b.Run(name, func(b *testing.B) {
			eps := make([]*endpoint.Endpoint, n)
			for i := range eps {
				eps[i] = a(fmt.Sprintf("host-%d.example.com", i), fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255+1), fmt.Sprintf("ingress/default/app-%d", i))
			}
			src := &listSource{eps: eps}
			p := inmemory.New("example.com")
			reg, err := txt.New(p, txt.Config{OwnerID: "bench", CacheInterval: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			settings := Settings{OwnerID: "bench", Policy: plan.PolicySync}
			if bc.guard {
				settings.Guard = plan.Guard{MaxDeleteFraction: 0.3, MinChanges: 10, Window: 10 * time.Minute, Settle: 3 * time.Second, Zones: []string{"example.com"}}
			}
			c := New(src, reg, settings, slog.New(slog.NewTextHandler(io.Discard, nil)))
			ctx := context.Background()
			if _, err := c.RunOnce(ctx); err != nil { // initial sync
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				src.mu.Lock()
				src.eps[0] = a("host-0.example.com", fmt.Sprintf("192.0.2.%d", i%250+1), "ingress/default/app-0")
				src.mu.Unlock()
				out, err := c.RunOnce(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if i > 0 && i%250 != 0 && len(out.Changes.UpdateNew) != 1 {
					b.Fatalf("iteration %d: %d updates, want 1", i, len(out.Changes.UpdateNew))
				}
			}
		})
	}
}
