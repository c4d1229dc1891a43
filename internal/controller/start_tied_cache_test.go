package controller

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/cache"

	networkinglisters "k8s.io/client-go/listers/networking/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/source"
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
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDSTART", "AWS_SECRET_ACCESS_KEY": "start-secret", "AWS_REGION": "us-east-1",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_ROUTE_53": "", "AWS_ENDPOINT_URL_STS": ""} {
		t.Setenv(k, v)
	}
	emu := route53emu.New(route53emu.Options{})
	hs := httptest.NewServer(emu)
	t.Cleanup(hs.Close)
	if _, err := emu.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	r53, err := aws.New(ctx, aws.Config{Endpoint: hs.URL, RequestsPerSecond: 10000, RetryMaxBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	listings := &recordsCounting{Wrapped: provider.Wrapped{Provider: r53}}
	reg, err := txt.New(provider.OwnPropertiesOnly(listings, []string{"aws/", provider.AliasProperty}), txt.Config{OwnerID: "test", CacheInterval: interval})
	if err != nil {
		t.Fatal(err)
	}
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	ing, err := source.NewIngressFromLister(networkinglisters.NewIngressLister(store), source.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	counting := &listingCountingObjects{ObjectSource: source.PostProcess(ing, source.PostProcessConfig{}).(source.ObjectSource)}
	plans := &plansCounting{}
	w := &propertyWorld{t: t, store: store, reg: reg}
	w.c = New(counting, reg, Settings{OwnerID: "test", Policy: plan.PolicySync, Interval: interval}, slog.New(plans))
	w.c.sourceCounted.Store(true)
	w.setIngress("web", "web.example.com", "192.0.2.1")
	w.setIngress("api", "api.example.com", "192.0.2.2")

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
