package controller

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// listingCountingSource is a listSource counting its listings; duringListing, when set, runs inside
// a listing (an event landing while the sources are read).
type listingCountingSource struct {
	*listSource
	listings      int
	duringListing func()
}

func (s *listingCountingSource) Endpoints(ctx context.Context) (source.Result, error) {
	s.listings++
	if s.duringListing != nil {
		s.duringListing()
	}
	return s.listSource.Endpoints(ctx)
}

func newQuietSourceController(t *testing.T) (*Controller, *listingCountingSource, *readCountingRegistry, *time.Time) {
	t.Helper()
	ls := &listSource{problems: []endpoint.Problem{{Object: endpoint.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "bad"},
		Field: "metadata.annotations[external-dns.alpha.kubernetes.io/ttl]", Value: "soon", Reason: "not a duration"}}}
	ls.eps = []*endpoint.Endpoint{a("web.example.com", "192.0.2.1", "service/default/web"),
		a("shared.example.com", "192.0.2.2", "ingress/default/one"), a("shared.example.com", "192.0.2.3", "ingress/default/two")}
	src := &listingCountingSource{listSource: ls}
	c, reg, _ := newIdleController(t, nil, time.Hour)
	c.source = src
	now := time.Now()
	c.now = func() time.Time { return now }
	c.sourceEvents() // as Run does: from here on the controller counts the source's events
	mustRun(t, c)
	c.Resync()
	mustRun(t, c) // lists, plans, finds nothing to do, remembers
	return c, src, reg, &now
}

// TestIdleResyncDoesNotListQuietSources: while no event arrived since the listing behind the idle
// memo, an idle resync neither lists the sources again nor reads the registry's records, and still
// returns and reports what the memo's run did: the conflict, the problem, the desired count.
func TestIdleResyncDoesNotListQuietSources(t *testing.T) {
	c, src, reg, _ := newQuietSourceController(t)
	listings, reads := src.listings, reg.reads
	var reports []Report
	c.settings.Observer = observerFunc(func(r Report) { reports = append(reports, r) })
	for range 3 {
		c.refreshProvider(context.Background())
		out := mustRun(t, c)
		if out.Changes.HasChanges() || len(out.Conflicts) != 1 || len(out.Problems) != 1 {
			t.Fatalf("idle run: changes %+v conflicts %v problems %v, want none, 1 and 1", out.Changes, out.Conflicts, out.Problems)
		}
	}
	if src.listings != listings || reg.reads != reads {
		t.Fatalf("3 idle resyncs listed the sources %d times and read the records %d times, want 0 and 0",
			src.listings-listings, reg.reads-reads)
	}
	if len(reports) != 3 || reports[2].Desired != 3 || reports[2].Problems != 1 || reports[2].Conflicts == nil {
		t.Fatalf("idle runs reported %+v, want 3 reports of 3 desired, 1 problem and the conflict", reports)
	}
}

// TestIdleResyncListsSourcesAfterAnEvent: an event makes the next resync list the sources again
// and plan what changed; an event that changed nothing costs one listing, after which resyncs are
// quiet again.
func TestIdleResyncListsSourcesAfterAnEvent(t *testing.T) {
	c, src, _, _ := newQuietSourceController(t)
	src.set(nil, a("web.example.com", "192.0.2.9", "service/default/web"))
	listings := src.listings
	if out := mustRun(t, c); len(out.Changes.UpdateNew) != 1 || src.listings != listings+1 {
		t.Fatalf("after an event: changes %+v, %d listings, want the update and 1", out.Changes, src.listings-listings)
	}
	mustRun(t, c)                                                          // remembers the new state
	src.set(nil, a("web.example.com", "192.0.2.9", "service/default/web")) // an event that changes nothing
	listings = src.listings
	mustRun(t, c)
	mustRun(t, c)
	if src.listings != listings+1 {
		t.Fatalf("an event changing nothing cost %d listings over two resyncs, want 1", src.listings-listings)
	}
}

// TestIdleResyncListsSourcesWhenAnEventLandsDuringTheListing: an event that arrives while the
// sources are being listed may or may not be in that listing; the next resync lists them again.
func TestIdleResyncListsSourcesWhenAnEventLandsDuringTheListing(t *testing.T) {
	c, src, _, _ := newQuietSourceController(t)
	src.set(nil, src.eps...) // the memo's listing is stale: the next run lists
	src.duringListing = func() {
		src.duringListing = nil
		for _, h := range src.handlers {
			h() // lands after the count was read, before the listing is used
		}
	}
	mustRun(t, c)
	listings := src.listings
	mustRun(t, c)
	if src.listings != listings+1 {
		t.Fatalf("the resync after an event during the listing listed %d times, want 1", src.listings-listings)
	}
}

// TestIdleResyncRelistsQuietSourcesHourly: a source that failed to signal a change is listed again
// once sourceRelistAfter has passed, and its change planned.
func TestIdleResyncRelistsQuietSourcesHourly(t *testing.T) {
	c, src, _, now := newQuietSourceController(t)
	src.mu.Lock()
	src.eps = []*endpoint.Endpoint{a("web.example.com", "192.0.2.7", "service/default/web")} // no event
	src.mu.Unlock()
	if out := mustRun(t, c); out.Changes.HasChanges() {
		t.Fatalf("a change without an event was seen before the hourly listing: %+v", out.Changes)
	}
	*now = now.Add(sourceRelistAfter)
	out := mustRun(t, c)
	if len(out.Changes.UpdateNew) != 1 || out.Changes.UpdateNew[0].Targets[0] != "192.0.2.7" ||
		len(out.Changes.Delete) != 1 || out.Changes.Delete[0].DNSName != "shared.example.com" {
		t.Fatalf("after %v: changes %+v, want the update and the shared record deleted", sourceRelistAfter, out.Changes)
	}
}

// unwatchedSource is a listingCountingSource reading something no informer watches.
type unwatchedSource struct{ *listingCountingSource }

func (unwatchedSource) ReadsUnwatched() bool { return true }

// TestIdleResyncListsSourcesThatReadUnwatched: a source that reads something none of its informers
// watch (source.UnwatchedReader) is listed at every resync, and a change it found is planned.
func TestIdleResyncListsSourcesThatReadUnwatched(t *testing.T) {
	c, counting, _, _ := newQuietSourceController(t)
	c.source = unwatchedSource{counting}
	listings := counting.listings
	mustRun(t, c)
	mustRun(t, c)
	if counting.listings != listings+2 {
		t.Fatalf("two resyncs listed a source reading unwatched objects %d times, want 2", counting.listings-listings)
	}
	counting.mu.Lock()
	counting.eps = []*endpoint.Endpoint{a("web.example.com", "192.0.2.7", "service/default/web")} // no event
	counting.mu.Unlock()
	if out := mustRun(t, c); len(out.Changes.UpdateNew) != 1 {
		t.Fatalf("a change without an event was not planned: %+v", out.Changes)
	}
}

// TestNoQuietSourceSkipWithoutCountedEvents: before Run registers the controller's handler nothing
// counts the source's events, so every resync lists the sources.
func TestNoQuietSourceSkipWithoutCountedEvents(t *testing.T) {
	src := &listingCountingSource{listSource: &listSource{eps: []*endpoint.Endpoint{a("web.example.com", "192.0.2.1", "service/default/web")}}}
	c, _, _ := newIdleController(t, nil, time.Hour)
	c.source = src
	mustRun(t, c)
	mustRun(t, c)
	listings := src.listings
	mustRun(t, c)
	if src.listings != listings+1 {
		t.Fatalf("a resync without counted events listed the sources %d times, want 1", src.listings-listings)
	}
	if !reflect.DeepEqual(c.idle.listing.counted, false) {
		t.Fatal("the memo says its listing was counted")
	}
}
