package aws

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// listCounter counts the provider's Records calls, each a conversion of the whole cache. It embeds
// provider.Wrapped as the metrics wrapper does, so the registry finds the listing version through it.
type listCounter struct {
	provider.Wrapped
	mu    sync.Mutex
	lists int
}

func (c *listCounter) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.Provider.Records(ctx)
}

func (c *listCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lists
}

// versionStack is the TXT registry over the Route 53 provider, as the controller drives it at each
// --interval resync: the zone probe, then a Refresh that is always due (a cache interval of 1 ns).
type versionStack struct {
	srv   *route53emu.Server
	zones []route53emu.SeededZone
	p     *Provider
	c     *listCounter
	reg   *txt.Registry
}

func newVersionStack(t *testing.T, zones ...route53emu.SeedZone) *versionStack {
	t.Helper()
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	s := &versionStack{srv: srv, zones: seed(t, srv, zones...), p: newProvider(t, url, Config{})}
	s.c = &listCounter{Wrapped: provider.Wrapped{Provider: s.p}}
	reg, err := txt.New(s.c, txt.Config{OwnerID: "v", CacheInterval: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	s.reg = reg
	return s
}

// resync is the zone probe (relist: the relisting period) and the registry's Refresh.
func (s *versionStack) resync(t *testing.T, relist time.Duration) (stale []string) {
	t.Helper()
	stale, err := s.reg.CheckZones(ctxT(t), relist)
	if err != nil {
		t.Fatalf("CheckZones: %v", err)
	}
	if err := s.reg.Refresh(ctxT(t)); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	return stale
}

// idle runs resyncs with nothing changed and fails if any of them listed the provider or a zone.
func (s *versionStack) idle(t *testing.T, what string) {
	t.Helper()
	lists := s.c.count()
	s.srv.ClearCalls()
	for range 3 {
		if stale := s.resync(t, 24*time.Hour); len(stale) > 0 {
			t.Fatalf("%s: idle resync found %v stale", what, stale)
		}
	}
	if got := s.c.count() - lists; got != 0 {
		t.Fatalf("%s: 3 idle resyncs listed the provider's cache %d times, want 0", what, got)
	}
	if n := s.srv.Counters().Calls["ListResourceRecordSets"]; n != 0 {
		t.Fatalf("%s: idle resyncs listed %d pages", what, n)
	}
}

// records is what the registry returns (its fold of the cache).
func (s *versionStack) records(t *testing.T) (string, error) {
	t.Helper()
	eps, err := s.reg.Records(ctxT(t))
	if _, partial := provider.AsUnreadableZones(err); err != nil && !partial {
		t.Fatal(err)
	}
	return epNames(eps), err
}

// settle is a resync after a listing, then idle resyncs. (The first resync confirmed a listing made
// while the version was unknown before it, until Records reported the version of what it returned.)
func (s *versionStack) settle(t *testing.T, what string) {
	t.Helper()
	s.resync(t, 24*time.Hour)
	s.idle(t, what)
}

func ownedRecords(zone string, hosts ...string) route53emu.SeedZone {
	z := route53emu.SeedZone{Name: zone}
	for i, h := range hosts {
		name := h + "." + zone + "."
		z.Records = append(z.Records,
			route53emu.RecordSet{Name: name, Type: "A", TTL: num(300), ResourceRecords: values(fmt.Sprintf("192.0.2.%d", i+1))},
			route53emu.RecordSet{Name: name, Type: "TXT", TTL: num(300), ResourceRecords: values(`"heritage=external-dns,external-dns/owner=v,external-dns/resource=service/default/` + h + `"`)})
	}
	return z
}

// Issue 15 (idle cost): an idle resync over an unchanged Route 53 cache neither lists nor converts
// the cache, nor hashes it: the provider's listing version says it holds what the registry's cache was
// built from, and the registry keeps its cache with its generation. One zone is probed with
// GetHostedZone; two zones fill one ListHostedZones page, which is their probe and carries the zone
// list, installed again unchanged.
func TestIdleResyncOfAnUnchangedRoute53CacheListsNothing(t *testing.T) {
	for _, zones := range [][]route53emu.SeedZone{
		{ownedRecords("one.test", "a", "b")},
		{ownedRecords("one.test", "a", "b"), ownedRecords("two.test", "c")},
	} {
		t.Run(fmt.Sprintf("zones=%d", len(zones)), func(t *testing.T) {
			s := newVersionStack(t, zones...)
			_, serial, mutations, err := s.reg.RecordsWithGeneration(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.records(t)
			s.settle(t, "unchanged")
			if lists := s.c.count(); lists != 1 {
				t.Fatalf("the first listing, tied to the version its Records reported, and idle resyncs: %d listings, want 1", lists)
			}
			eps, serial2, mutations2, err := s.reg.RecordsWithGeneration(ctxT(t))
			if err != nil || serial2 != serial || mutations2 != mutations || epNames(eps) != want || s.c.count() != 1 {
				t.Fatalf("after idle resyncs: generation %d/%d -> %d/%d, %d listings, records %s (want %s), %v",
					serial, mutations, serial2, mutations2, s.c.count(), epNames(eps), want, err)
			}
		})
	}
}

// Each way the provider's cache changes makes the next idle resync list it again, and the registry
// sees the change; once confirmed, resyncs are idle again.
func TestRegistryRelistsWhenTheRoute53CacheChanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change changes the zones; relist is the relisting period of the resync that follows.
		change func(t *testing.T, s *versionStack) (relist time.Duration)
		want   func(records string) bool
	}{
		{name: "the registry's own ApplyChanges", change: func(t *testing.T, s *versionStack) time.Duration {
			err := s.reg.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
				ep("new.one.test", "A", 300, "198.51.100.1").WithLabel(endpoint.ResourceLabelKey, "service/default/new")}})
			if err != nil {
				t.Fatal(err)
			}
			return 24 * time.Hour
		}, want: func(r string) bool { return strings.Contains(r, "new.one.test=198.51.100.1") }},
		// The registry's cache is not patched: only the provider's version tells.
		{name: "an ApplyChanges of the provider the registry did not make", change: func(t *testing.T, s *versionStack) time.Duration {
			if err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("direct.one.test", "A", 300, "198.51.100.2")}}); err != nil {
				t.Fatal(err)
			}
			return 24 * time.Hour
		}, want: func(r string) bool { return strings.Contains(r, "direct.one.test=198.51.100.2") }},
		{name: "a record set added behind its back, found by the probe", change: func(t *testing.T, s *versionStack) time.Duration {
			outOfBand(t, s.p, s.zones[1].ID, r53types.ChangeActionCreate, "oob.two.test", "198.51.100.3")
			return 24 * time.Hour
		}, want: func(r string) bool { return strings.Contains(r, "oob.two.test=198.51.100.3") }},
		// The provider probes and lists on its own: the registry's cache is not dropped.
		{name: "a record set added behind its back, found by a probe the registry did not make", change: func(t *testing.T, s *versionStack) time.Duration {
			outOfBand(t, s.p, s.zones[1].ID, r53types.ChangeActionCreate, "probed.two.test", "198.51.100.6")
			if stale, err := s.p.CheckZones(ctxT(t), 24*time.Hour); err != nil || fmt.Sprint(stale) != "[two.test]" {
				t.Fatalf("the provider's CheckZones = %v, %v", stale, err)
			}
			if _, err := s.p.Records(ctxT(t)); err != nil {
				t.Fatal(err)
			}
			return 24 * time.Hour
		}, want: func(r string) bool { return strings.Contains(r, "probed.two.test=198.51.100.6") }},
		{name: "a record set edited in place, found by the relisting", change: func(t *testing.T, s *versionStack) time.Duration {
			outOfBand(t, s.p, s.zones[0].ID, r53types.ChangeActionUpsert, "a.one.test", "198.51.100.4")
			if stale := s.resync(t, 24*time.Hour); len(stale) > 0 {
				t.Fatalf("an in-place edit keeps the count: %v stale", stale)
			}
			return time.Nanosecond // the relisting is due
		}, want: func(r string) bool { return strings.Contains(r, "a.one.test=198.51.100.4") }},
		{name: "a zone appearing", change: func(t *testing.T, s *versionStack) time.Duration {
			id := createZone(t, s.p, "three.test")
			outOfBand(t, s.p, id, r53types.ChangeActionCreate, "d.three.test", "198.51.100.5")
			return 24 * time.Hour
		}, want: func(r string) bool { return strings.Contains(r, "d.three.test=198.51.100.5") }},
		{name: "a zone disappearing", change: func(t *testing.T, s *versionStack) time.Duration {
			deleteZone(t, s.p.accounts[0].api, s.zones[1].ID)
			return 24 * time.Hour
		}, want: func(r string) bool { return !strings.Contains(r, "two.test") && strings.Contains(r, "a.one.test") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newVersionStack(t, ownedRecords("one.test", "a", "b"), ownedRecords("two.test", "c"))
			if _, err := s.records(t); err != nil {
				t.Fatal(err)
			}
			s.settle(t, "before the change")
			relist := tc.change(t, s)
			lists := s.c.count()
			s.resync(t, relist)
			if s.c.count() == lists {
				t.Fatal("the resync after the change did not list the provider")
			}
			if got, err := s.records(t); err != nil || !tc.want(got) {
				t.Fatalf("after the change the registry returns %s, %v", got, err)
			}
			s.settle(t, "after the change")
		})
	}
}

// A zone that cannot be listed leaves the version unknown: every resync lists, and the registry
// returns the other zones' records with the error. Once it can be listed again, its records come
// back and resyncs are idle again.
func TestRegistryRelistsWhileAZoneIsUnreadable(t *testing.T) {
	s := newVersionStack(t, ownedRecords("one.test", "a", "b"), ownedRecords("two.test", "c"))
	if _, err := s.records(t); err != nil {
		t.Fatal(err)
	}
	s.settle(t, "readable")
	if err := s.srv.AddFault(route53emu.Fault{Operation: "ListResourceRecordSets", ZoneID: s.zones[1].ID, Code: "AccessDenied"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		lists := s.c.count()
		s.resync(t, []time.Duration{time.Nanosecond, 24 * time.Hour}[i]) // relisted, then probed
		got, err := s.records(t)
		if _, partial := provider.AsUnreadableZones(err); !partial || strings.Contains(got, "two.test") || !strings.Contains(got, "a.one.test") {
			t.Fatalf("resync %d with two.test unreadable: %s, %v", i, got, err)
		}
		if s.c.count() == lists {
			t.Fatalf("resync %d with two.test unreadable did not list", i)
		}
	}
	s.srv.ClearFaults()
	s.resync(t, 24*time.Hour)
	if got, err := s.records(t); err != nil || !strings.Contains(got, "c.two.test") {
		t.Fatalf("two.test readable again: %s, %v", got, err)
	}
	s.settle(t, "readable again")
}

// The provider's listing version follows its cache: unknown until listed, after Invalidate, while a
// zone CheckZones dropped is not listed again; changed by a write; the same across probes that find
// nothing.
func TestListingVersionFollowsTheCache(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	zs := seed(t, srv, ownedRecords("one.test", "a"), ownedRecords("two.test", "b"))
	p := newProvider(t, url, Config{})
	if _, ok := p.ListingVersion(); ok {
		t.Fatal("known before any listing")
	}
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	v, ok := p.ListingVersion()
	if !ok {
		t.Fatal("unknown after a listing")
	}
	for range 2 {
		if stale, err := p.CheckZones(ctxT(t), 24*time.Hour); err != nil || len(stale) > 0 {
			t.Fatalf("CheckZones = %v, %v", stale, err)
		}
		if _, err := p.Records(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if v2, ok := p.ListingVersion(); !ok || v2 != v {
			t.Fatalf("an idle probe and listing changed the version %d -> %d (known %v)", v, v2, ok)
		}
	}
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("x.one.test", "A", 300, "198.51.100.9")}}); err != nil {
		t.Fatal(err)
	}
	v2, ok := p.ListingVersion()
	if !ok || v2 == v {
		t.Fatalf("a write kept the version %d (known %v)", v2, ok)
	}
	outOfBand(t, p, zs[1].ID, r53types.ChangeActionCreate, "y.two.test", "198.51.100.10")
	if stale, err := p.CheckZones(ctxT(t), 24*time.Hour); err != nil || fmt.Sprint(stale) != "[two.test]" {
		t.Fatalf("CheckZones = %v, %v", stale, err)
	}
	if _, ok := p.ListingVersion(); ok {
		t.Fatal("known while a dropped zone is not listed again")
	}
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	v3, ok := p.ListingVersion()
	if !ok || v3 == v2 {
		t.Fatalf("the relisted zone kept the version %d (known %v)", v3, ok)
	}
	p.Invalidate()
	if _, ok := p.ListingVersion(); ok {
		t.Fatal("known after Invalidate")
	}
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if v4, ok := p.ListingVersion(); !ok || v4 == v3 {
		t.Fatalf("a full relisting kept the version %d (known %v)", v4, ok)
	}
}

// The controller's idle resync over Route 53 (probe, then a reconcile whose registry is due): nothing
// is listed or converted, nothing planned or sent; a record deleted behind our back is still found by
// the probe, listed and written again by the next resync.
func TestControllerIdleResyncOverRoute53ListsNothingAndStillHeals(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	zs := seed(t, srv, route53emu.SeedZone{Name: "one.test"})
	p := newProvider(t, url, Config{})
	c := &listCounter{Wrapped: provider.Wrapped{Provider: p}}
	reg, err := txt.New(c, txt.Config{OwnerID: "v", CacheInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	eps := []*endpoint.Endpoint{
		ep("a.one.test", "A", 300, "192.0.2.1").WithLabel(endpoint.ResourceLabelKey, "service/default/a"),
		ep("b.one.test", "A", 300, "192.0.2.2").WithLabel(endpoint.ResourceLabelKey, "service/default/b"),
	}
	filter, _ := plan.NewDomainFilter(nil, nil, "", "")
	ctrl := controller.New(&staticSource{eps: eps}, reg, controller.Settings{OwnerID: "v", Policy: plan.PolicySync, DomainFilter: filter, Interval: time.Minute},
		slog.New(slog.DiscardHandler))
	resync := func() controller.Outcome {
		t.Helper()
		time.Sleep(2 * time.Millisecond) // the registry's cache interval passes
		if _, err := reg.CheckZones(ctxT(t), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		out, err := ctrl.RunOnce(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for range 3 { // the first run writes, the next plans once against the cache the writes patched
		resync()
	}
	if len(dump(srv, "one.test")) != 4 {
		t.Fatalf("converged zone holds %v", dump(srv, "one.test"))
	}
	lists := c.count()
	srv.ClearCalls()
	for range 3 {
		if out := resync(); out.Changes.HasChanges() {
			t.Fatalf("an idle resync planned %v", out.Changes)
		}
	}
	if calls := srv.Counters().Calls; c.count() != lists || calls["ListResourceRecordSets"] != 0 || calls["ChangeResourceRecordSets"] != 0 {
		t.Fatalf("3 idle resyncs: %d Records calls, calls %v; want the probes alone", c.count()-lists, calls)
	}
	outOfBand(t, p, zs[0].ID, r53types.ChangeActionDelete, "a.one.test", "192.0.2.1")
	if out := resync(); out.Changes.Len() != 1 || len(out.Changes.Create) != 1 || out.Changes.Create[0].DNSName != "a.one.test" {
		t.Fatalf("the resync after a.one.test was deleted behind our back planned %v", out.Changes)
	}
	if _, ok := dump(srv, "one.test")["a.one.test. A "]; !ok {
		t.Fatalf("a.one.test was not written again: %v", dump(srv, "one.test"))
	}
}
