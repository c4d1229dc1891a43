package controller

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// readCountingRegistry is the TXT registry counting the calls that read its whole cache; it keeps
// the last records it shared and what they said when handed out.
type readCountingRegistry struct {
	*txt.Registry
	reads               int
	shared              []*endpoint.Endpoint
	sharedWhenHandedOut []string
}

func (r *readCountingRegistry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	r.reads++
	return r.Registry.Records(ctx)
}

func (r *readCountingRegistry) SharedRecordsWithGeneration(ctx context.Context) ([]*endpoint.Endpoint, uint64, uint64, error) {
	r.reads++
	eps, serial, mutations, err := r.Registry.SharedRecordsWithGeneration(ctx)
	r.shared, r.sharedWhenHandedOut = eps, renderRecords(eps)
	return eps, serial, mutations, err
}

// renderRecords is everything a record says, one line each.
func renderRecords(eps []*endpoint.Endpoint) []string {
	out := make([]string, len(eps))
	for i, e := range eps {
		out[i] = fmt.Sprintf("%s %v %v", e, e.Labels, e.ProviderSpecific)
	}
	return out
}

func newIdleController(t *testing.T, src *listSource, cacheInterval time.Duration) (*Controller, *readCountingRegistry, *inmemory.Provider) {
	t.Helper()
	p := inmemory.New("example.com")
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: cacheInterval})
	if err != nil {
		t.Fatal(err)
	}
	cr := &readCountingRegistry{Registry: reg}
	c := New(src, cr, Settings{OwnerID: "test", Policy: plan.PolicySync, ProviderCacheTime: time.Hour},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	return c, cr, p
}

func mustRun(t *testing.T, c *Controller) Outcome {
	t.Helper()
	out, err := c.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestIdleResyncDoesNotReplan: once a plan changed nothing, a run with the same desired endpoints
// against the same cache neither copies the registry's records nor plans again, and returns what the
// plan did (here a conflict between two objects).
func TestIdleResyncDoesNotReplan(t *testing.T) {
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"),
		a("shared.example.com", "192.0.2.2", "ingress/default/one"),
		a("shared.example.com", "192.0.2.3", "ingress/default/two"))
	c, reg, _ := newIdleController(t, src, time.Hour)
	if out := mustRun(t, c); len(out.Changes.Create) != 2 {
		t.Fatalf("first run: %+v", out.Changes)
	}
	c.Resync()               // as Run does at its start: the resyncs below trust the cache for ProviderCacheTime
	planned := mustRun(t, c) // lists, plans, finds nothing to do, remembers
	if planned.Changes.HasChanges() || len(planned.Conflicts) != 1 {
		t.Fatalf("second run: changes %+v conflicts %v", planned.Changes, planned.Conflicts)
	}
	before := reg.reads
	for range 3 {
		c.refreshProvider(context.Background())
		out := mustRun(t, c)
		if out.Changes == nil || out.Changes.HasChanges() || !reflect.DeepEqual(out.Conflicts, planned.Conflicts) {
			t.Fatalf("idle run: changes %+v conflicts %v, want none and %v", out.Changes, out.Conflicts, planned.Conflicts)
		}
	}
	if reg.reads != before {
		t.Fatalf("idle runs read the registry's records %d times, want 0", reg.reads-before)
	}
}

// TestIdleResyncStillPlansRealChanges: an object that changed, a record changed out of band once the
// cache is listed again, and a rejected change whose retry is due are all planned.
func TestIdleResyncStillPlansRealChanges(t *testing.T) {
	ctx := context.Background()
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	c, reg, p := newIdleController(t, src, time.Hour)
	now := time.Now()
	c.now = func() time.Time { return now }
	mustRun(t, c)
	mustRun(t, c)

	t.Run("object changed", func(t *testing.T) {
		src.set(nil, a("web.example.com", "192.0.2.9", "service/default/web"))
		if out := mustRun(t, c); len(out.Changes.UpdateNew) != 1 || out.Changes.UpdateNew[0].Targets[0] != "192.0.2.9" {
			t.Fatalf("changed address not planned: %+v", out.Changes)
		}
		mustRun(t, c)
		// A label only (the resource an endpoint names) is part of what is compared, too.
		src.set(nil, a("web.example.com", "192.0.2.9", "service/default/web"), a("api.example.com", "192.0.2.4", "service/default/api"))
		if out := mustRun(t, c); len(out.Changes.Create) != 1 {
			t.Fatalf("new object not planned: %+v", out.Changes)
		}
		mustRun(t, c)
	})
	t.Run("record deleted out of band", func(t *testing.T) {
		recs, _ := p.Records(ctx)
		var gone []*endpoint.Endpoint
		for _, e := range recs {
			if e.DNSName == "web.example.com" && e.RecordType == endpoint.RecordTypeA {
				gone = append(gone, e)
			}
		}
		if err := p.ApplyChanges(ctx, &plan.Changes{Delete: gone}); err != nil || len(gone) != 1 {
			t.Fatalf("deleting behind the controller's back: %v (%d)", err, len(gone))
		}
		if out := mustRun(t, c); out.Changes.HasChanges() {
			t.Fatalf("the cache is trusted within its time, yet %+v", out.Changes)
		}
		c.Resync() // the next listing sees it
		before := reg.reads
		if out := mustRun(t, c); len(out.Changes.Create) != 1 || out.Changes.Create[0].DNSName != "web.example.com" || reg.reads != before+1 {
			t.Fatalf("record deleted out of band not recreated: %+v", out.Changes)
		}
		mustRun(t, c)
	})
	t.Run("retry due", func(t *testing.T) {
		src.set(nil, a("web.example.com", "192.0.2.9", "service/default/web"), a("api.example.com", "192.0.2.4", "service/default/api"),
			a("outside.example.org", "192.0.2.5", "ingress/default/stray"))
		if out := mustRun(t, c); out.Rejected != 1 {
			t.Fatalf("the out-of-zone record was not rejected: %+v", out)
		}
		if out := mustRun(t, c); out.Changes.HasChanges() {
			t.Fatalf("retried before its backoff: %+v", out.Changes)
		}
		now = now.Add(2 * time.Second)
		if out := mustRun(t, c); len(out.Changes.Create) != 1 || out.Changes.Create[0].DNSName != "outside.example.org" {
			t.Fatalf("not retried when due: %+v", out.Changes)
		}
	})
}

// TestNoIdleSkipWithoutCache: a registry that lists on every Records (no cache interval) is read
// every run, so a record changed out of band is healed by the next run.
func TestNoIdleSkipWithoutCache(t *testing.T) {
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	c, reg, p := newIdleController(t, src, 0)
	mustRun(t, c)
	mustRun(t, c)
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Delete: []*endpoint.Endpoint{endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	before := reg.reads
	if out := mustRun(t, c); len(out.Changes.Create) != 1 || reg.reads != before+1 {
		t.Fatalf("record deleted out of band not recreated: %+v", out.Changes)
	}
}

// listCountingProvider counts the provider's listings.
type listCountingProvider struct {
	*inmemory.Provider
	lists int
}

func (p *listCountingProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.lists++
	return p.Provider.Records(ctx)
}

// TestIdleResyncRelistingDoesNotReplan: with default flags a provider without a zone probe is
// listed again at every resync. When it holds what the cache was built from, the registry keeps its
// cache and the run plans nothing and copies nothing; a record deleted out of band is recreated at
// the next resync.
func TestIdleResyncRelistingDoesNotReplan(t *testing.T) {
	ctx := context.Background()
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	p := &listCountingProvider{Provider: inmemory.New("example.com")}
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: time.Minute}) // as the app builds it: max(--interval, --provider-cache-time)
	if err != nil {
		t.Fatal(err)
	}
	cr := &readCountingRegistry{Registry: reg}
	c := New(src, cr, Settings{OwnerID: "test", Policy: plan.PolicySync, Interval: time.Minute}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	resync := func() Outcome {
		t.Helper()
		c.refreshProvider(ctx)
		return mustRun(t, c)
	}
	resync()
	resync() // plans, finds nothing to do, remembers
	lists, reads := p.lists, cr.reads
	for range 3 {
		if out := resync(); out.Changes.HasChanges() {
			t.Fatalf("idle resync planned %+v", out.Changes)
		}
	}
	if p.lists != lists+3 || cr.reads != reads {
		t.Fatalf("3 idle resyncs: %d listings and %d copies of the records, want 3 and 0", p.lists-lists, cr.reads-reads)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	if out := resync(); len(out.Changes.Create) != 1 || out.Changes.Create[0].DNSName != "web.example.com" {
		t.Fatalf("record deleted out of band not recreated at the next resync: %+v", out.Changes)
	}
}

// A full plan reads the registry's own records (SharedRecordsWithGeneration, no copies): nothing the
// controller, the plan or the apply does may change them, since every later reader shares them. A
// run that creates, updates (targets, TTL) and deletes must leave the records it read as they were
// handed out.
func TestFullRunsLeaveTheSharedRecordsAlone(t *testing.T) {
	src := &listSource{eps: []*endpoint.Endpoint{
		a("keep.example.com", "192.0.2.1", "ingress/default/keep"),
		a("change.example.com", "192.0.2.2", "ingress/default/change"),
		a("gone.example.com", "192.0.2.3", "ingress/default/gone"),
	}}
	c, reg, _ := newIdleController(t, src, time.Hour)
	mustRun(t, c)
	changed := a("change.example.com", "192.0.2.20", "ingress/default/change")
	changed.RecordTTL = 300
	src.mu.Lock()
	src.eps = []*endpoint.Endpoint{src.eps[0], changed, a("new.example.com", "192.0.2.4", "ingress/default/new")}
	src.mu.Unlock()
	reg.shared = nil
	out := mustRun(t, c)
	if out.Changes.Len() < 3 || len(reg.shared) == 0 {
		t.Fatalf("the run made %d changes from %d shared records; the test needs a create, an update and a delete planned over the shared records", out.Changes.Len(), len(reg.shared))
	}
	if after := renderRecords(reg.shared); !slices.Equal(reg.sharedWhenHandedOut, after) {
		t.Fatalf("a full run changed the records it read:\nhanded out %v\nafter      %v", reg.sharedWhenHandedOut, after)
	}
}
