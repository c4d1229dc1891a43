package controller

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// recordsCounting counts the provider's Records calls (each a conversion of Route 53's whole cache)
// and forwards provider.ExactWriter, where the app's metrics wrapper sits.
type recordsCounting struct {
	provider.Wrapped
	mu    sync.Mutex
	calls int
}

func (p *recordsCounting) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	return p.Provider.Records(ctx)
}

func (p *recordsCounting) ListsExactlyWhatItWrote() bool {
	w, ok := p.Provider.(provider.ExactWriter)
	return ok && w.ListsExactlyWhatItWrote()
}

func (p *recordsCounting) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// plansCounting counts the runs that planned (a plan was made: "All records are already up to date"
// with the planned names, or "Changes applied"), not those the idle memo skipped ("replanned"=false).
type plansCounting struct {
	mu    sync.Mutex
	plans int
}

func (h *plansCounting) Enabled(context.Context, slog.Level) bool { return true }
func (h *plansCounting) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *plansCounting) WithGroup(string) slog.Handler            { return h }
func (h *plansCounting) Handle(_ context.Context, r slog.Record) error {
	planned := r.Message == "Changes applied"
	r.Attrs(func(a slog.Attr) bool {
		planned = planned || (r.Message == "All records are already up to date" && a.Key == "planned")
		return true
	})
	if planned {
		h.mu.Lock()
		h.plans++
		h.mu.Unlock()
	}
	return nil
}

func (h *plansCounting) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.plans
}

// Issue 15 (the one-off full replan after start), on the app's stack: the Ingress source, the TXT
// registry over the aws provider (under a Records counter standing where the metrics wrapper does, in
// provider.OwnPropertiesOnly), the Route 53 emulator; a short cache interval and the real clock. The
// start writes, the resync right after it plans everything once against the cache the writes patched
// and leaves the idle memo. The registry's first listing was made while the provider's listing
// version was still unknown, so its cache was never tied to a version: the first resync that found
// it aged listed the provider, built a new cache, moved the generation the memo was keyed on, and
// listed the sources and planned every name again. Tied to the version the provider's Records
// reported with its records, the cache is kept: that resync and the idle ones after it list nothing
// and plan nothing.
func TestTheResyncsAfterStartAndConvergingListAndPlanOnce(t *testing.T) {
	const interval = 300 * time.Millisecond
	const idleResyncs = 3
	ctx := context.Background()
	var listings *recordsCounting
	plans := &plansCounting{}
	w, counting := newRoute53World(t, interval, func(p provider.Provider) provider.Provider {
		listings = &recordsCounting{Wrapped: provider.Wrapped{Provider: p}}
		return listings
	}, slog.New(plans))

	run := func(step string) Report {
		t.Helper()
		var got Report
		w.c.settings.Observer = observerFunc(func(r Report) { got = r })
		w.c.trigger = TriggerResync
		if _, err := w.c.runOnce(ctx, false); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return got
	}
	if r := run("start"); len(r.Changes.Create) != 2 {
		t.Fatalf("the first run changed %v, want 2 creates", describe(r.Changes))
	}
	if r := run("converged"); r.Changes.HasChanges() || !w.c.idle.valid {
		t.Fatalf("the second run changed %v (memo kept %v), want nothing and a memo", describe(r.Changes), w.c.idle.valid)
	}
	provider0, sources0, plans0 := listings.count(), counting.listings, plans.count()
	for i := range idleResyncs {
		time.Sleep(interval) // the registry's cache ages, as between two --interval resyncs
		if r := run("idle resync"); r.Changes.HasChanges() {
			t.Fatalf("idle resync %d changed %v", i+1, describe(r.Changes))
		}
	}
	t.Logf("start + converging resync: %d provider listings, %d source listings, %d plans; %d idle resyncs after: "+
		"%d provider listings, %d source listings, %d plans", provider0, sources0, plans0, idleResyncs,
		listings.count()-provider0, counting.listings-sources0, plans.count()-plans0)
	if n, s, p := listings.count()-provider0, counting.listings-sources0, plans.count()-plans0; n != 0 || s != 0 || p != 0 {
		t.Fatalf("%d idle resyncs after start and converging: %d listings of the provider, %d of the sources, %d plans; want none",
			idleResyncs, n, s, p)
	}
}
