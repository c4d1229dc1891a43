package controller

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// The 20k side by side (Route 53 emulator, Ingresses): the first events after the idle window made
// the controller list every Ingress and plan every name, taking the heap from 48 to 120 MB. The
// TXT registry's cache ages after --interval, and the resync that ticks once per interval refreshes
// it only when it finds it aged: a resync that finds it a moment short of that leaves it to age just
// after, and an event until the next resync found the lookup by name refused (RecordsNamed: the
// cache is due for a listing) and planned everything, although the Route 53 provider's own cache,
// at the version the registry's was tied to, would have given the same records without a call.
//
// The stack is the app's (the Ingress source, the TXT registry over the aws provider wrapped in
// provider.OwnPropertiesOnly, the emulator); the cache interval is short and the clock real.
func TestAnEventAfterTheCacheAgedPlansByName(t *testing.T) {
	const interval = 300 * time.Millisecond
	ctx := context.Background()
	w, counting := newRoute53World(t, interval, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))

	run := func(step string, trigger Trigger) Report {
		t.Helper()
		var got Report
		w.c.settings.Observer = observerFunc(func(r Report) { got = r })
		w.c.trigger = trigger
		if _, err := w.c.runOnce(ctx, trigger == TriggerEvent); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return got
	}
	if r := run("start", TriggerStart); len(r.Changes.Create) != 2 {
		t.Fatalf("the first run changed %v, want 2 creates", describe(r.Changes))
	}
	if r := run("converged", TriggerResync); r.Changes.HasChanges() || !w.c.idle.valid {
		t.Fatalf("the second run changed %v (memo kept %v), want nothing and a memo", describe(r.Changes), w.c.idle.valid)
	}
	// The cache, patched with the first run's writes, is tied to the version the start's Records
	// reported (77022ef), so this aged-cache resync keeps it without listing; before, that version was
	// unknown before the first listing, and here the cache was listed and built again.
	time.Sleep(interval)
	run("first resync after the cache aged", TriggerResync)
	time.Sleep(interval)
	listings := counting.listings
	if r := run("idle resync", TriggerResync); r.Changes.HasChanges() || counting.listings != listings {
		t.Fatalf("the idle resync listed the sources %d times and changed %v; want the memo reused", counting.listings-listings, describe(r.Changes))
	}
	// The resync a moment before the cache aged left it as it was; the event comes after.
	time.Sleep(interval)
	w.setIngress("web", "web.example.com", "192.0.2.9")
	r := run("event", TriggerEvent)
	if r.Scope == nil || counting.listings != listings || len(r.Changes.UpdateNew) != 1 || r.Changes.UpdateNew[0].Targets[0] != "192.0.2.9" {
		t.Fatalf("the event after the cache aged: scope %v, %d listings of the sources, changes %v; want a plan of its names, "+
			"no listing and web's new address", r.Scope, counting.listings-listings, describe(r.Changes))
	}
	if r := run("resync after the event", TriggerResync); r.Changes.HasChanges() || counting.listings != listings {
		t.Fatalf("the resync after the event listed the sources %d times and changed %v; want the carried memo reused",
			counting.listings-listings, describe(r.Changes))
	}
}
