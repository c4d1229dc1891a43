package controller

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// listingCountingObjects is an object source counting its full listings; duringObjects, when set,
// runs inside an event's read of some objects (an event landing while the run reads them).
type listingCountingObjects struct {
	source.ObjectSource
	listings      int
	duringObjects func()
}

func (s *listingCountingObjects) Endpoints(ctx context.Context) (source.Result, error) {
	s.listings++
	return s.ObjectSource.Endpoints(ctx)
}

func (s *listingCountingObjects) ObjectEndpoints(ctx context.Context, resources []string) (source.Result, error) {
	if f := s.duringObjects; f != nil {
		s.duringObjects = nil
		f()
	}
	return s.ObjectSource.ObjectEndpoints(ctx, resources)
}

// newCarryWorld is a property world (the real Ingress and Service sources over informer stores, the
// TXT registry over the in-memory provider) whose controller counts events and whose source counts
// its listings, converged: the last run planned everything, changed nothing and left its memo.
func newCarryWorld(t *testing.T) (*propertyWorld, *listingCountingObjects) {
	t.Helper()
	w := newPropertyWorld(t, 7)
	w.noBad = true
	w.c.sourceCounted.Store(true)
	counting := &listingCountingObjects{ObjectSource: w.src.(source.ObjectSource)}
	w.c.source = counting
	w.setIngress("web", "web.example.com", "192.0.2.1")
	w.setIngress("api", "api.example.com", "192.0.2.2")
	ctx := context.Background()
	for range 2 {
		if _, err := w.c.runOnce(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	if !w.c.idle.valid || !w.c.idle.hashed {
		t.Fatal("a full run that changed nothing left no idle memo")
	}
	return w, counting
}

// setIngress creates or replaces an Ingress with one host and one address, and marks it.
func (w *propertyWorld) setIngress(name, host, ip string) {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: host}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: ip}}}}}
	if err := w.store.Update(ing); err != nil {
		w.t.Fatal(err)
	}
	w.mark("ingress/default/" + name)
}

// TestResyncAfterAnEventsRunListsNothing: an event's run that leaves nothing to do keeps the idle
// memo, so the resync after it neither lists the sources nor plans; it reports the desired count
// the event changed. Before the memo was kept, that resync listed and planned everything.
func TestResyncAfterAnEventsRunListsNothing(t *testing.T) {
	w, counting := newCarryWorld(t)
	ctx := context.Background()
	w.setIngress("web", "www.example.com", "192.0.2.9") // a rename and a new address
	w.setIngress("new", "new.example.com", "192.0.2.3")
	if r := w.runEvent(ctx, 0); r.Scope == nil || r.Changes.Len() == 0 {
		t.Fatalf("the event's run: scope %v, changes %v; want a run by name that changes something", r.Scope, r.Changes)
	}
	listings := counting.listings
	var got Report
	w.c.settings.Observer = observerFunc(func(r Report) { got = r })
	w.c.trigger = TriggerResync
	out, err := w.c.runOnce(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if counting.listings != listings || out.Changes.HasChanges() {
		t.Fatalf("the resync after the event's run listed the sources %d times and changed %v; want 0 and nothing",
			counting.listings-listings, out.Changes)
	}
	if want := len(w.fullPlanDesired(t)); got.Desired != want || want != 3 {
		t.Fatalf("the resync reported %d desired endpoints, want %d (3)", got.Desired, want)
	}
	if after := w.fullPlan(); after.Changes.HasChanges() {
		t.Fatalf("a full plan would still change %s", describe(after.Changes))
	}
}

// TestResyncListsAfterAnEventDuringTheEventsRun: an event that lands while an event's run reads its
// objects is not served by that run; the resync after it lists the sources and plans it.
func TestResyncListsAfterAnEventDuringTheEventsRun(t *testing.T) {
	w, counting := newCarryWorld(t)
	ctx := context.Background()
	w.setIngress("web", "web.example.com", "192.0.2.9")
	counting.duringObjects = func() { w.setIngress("api", "api.example.com", "192.0.2.8") }
	w.runEvent(ctx, 0)
	listings := counting.listings
	w.c.trigger = TriggerResync
	out, err := w.c.runOnce(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if counting.listings != listings+1 || len(out.Changes.UpdateNew) != 1 || out.Changes.UpdateNew[0].Targets[0] != "192.0.2.8" {
		t.Fatalf("the resync listed the sources %d times and changed %v; want 1 listing and api's new address",
			counting.listings-listings, describe(out.Changes))
	}
}

// fullPlanDesired is what a listing of the sources gives now.
func (w *propertyWorld) fullPlanDesired(t *testing.T) []string {
	res, err := w.oracle.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return recordStrings(res.Endpoints)
}

// TestResyncServesWaitingEventsByNameFirst: when the resync comes while events wait for their
// debounce, Run serves them by name first, and the resync after that run lists nothing. Served
// inside the resync, as before, they made it list the sources and plan everything.
func TestResyncServesWaitingEventsByNameFirst(t *testing.T) {
	w, counting := newCarryWorld(t)
	w.c.settings.Interval, w.c.settings.Debounce = 200*time.Millisecond, time.Hour // events wait for the resync
	// The provider's records are trusted for an hour: a relisting after the event's write would build
	// the registry's cache anew (the in-memory provider does not list exactly what it wrote), and a
	// new cache plans everything once whatever the memo.
	w.c.settings.ProviderCacheTime = time.Hour
	reports := make(chan Report, 64)
	w.c.settings.Observer = observerFunc(func(r Report) { reports <- r })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.c.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	next := func() Report {
		select {
		case r := <-reports:
			return r
		case <-time.After(30 * time.Second):
			t.Fatal("no run reported within 30 s")
			return Report{}
		}
	}
	if r := next(); r.Trigger != TriggerStart {
		t.Fatalf("first run: %s, want the start", r.Trigger)
	}
	for r := next(); r.Trigger != TriggerResync || r.Changes.HasChanges(); r = next() {
		// resyncs until one finds nothing to do (the start's listing was a full one)
	}
	listings := counting.listings
	w.setIngress("web", "web.example.com", "192.0.2.77")
	select {
	case w.c.events <- struct{}{}: // the handler's signal
	default:
	}
	ev := next()
	if ev.Trigger != TriggerEvent || ev.Scope == nil || len(ev.Changes.UpdateNew) != 1 {
		t.Fatalf("the run after the event: trigger %s, scope %v, changes %s; want the event's run by name and web's update",
			ev.Trigger, ev.Scope, describe(ev.Changes))
	}
	if r := next(); r.Trigger != TriggerResync || r.Changes.HasChanges() || counting.listings != listings {
		t.Fatalf("the resync after the event's run: trigger %s, changes %s, %d listings of the sources; want a resync, nothing, 0",
			r.Trigger, describe(r.Changes), counting.listings-listings)
	}
}
