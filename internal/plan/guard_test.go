package plan

import (
	"fmt"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

var t0 = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)

func ownedZone(zone string, n int) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for i := range n {
		out = append(out, rec(fmt.Sprintf("h%d.%s", i, zone), "A", "192.0.2.1").owned(testOwner).from(fmt.Sprintf("ingress/apps/h%d", i)).Endpoint)
	}
	return out
}

func TestGuardHoldsMassDeletesPerZone(t *testing.T) {
	g := Guard{MaxDeleteFraction: 0.3, MaxUpdateFraction: 0.3, MinChanges: 10, Zones: []string{"a.example.com", "b.example.com", "example.com"}}
	current := append(ownedZone("a.example.com", 500), ownedZone("b.example.com", 100)...)
	current = append(current, rec("foreign.a.example.com", "A", "192.0.2.9").owned("other").Endpoint)
	// A namespace with 500 Ingresses deleted: zone a loses everything; 5 deletes in zone b; one create.
	changes := &Changes{Delete: append(append([]*endpoint.Endpoint(nil), current[:500]...), current[500:505]...),
		Create: eps(rec("new.a.example.com", "A", "192.0.2.2"))}
	allowed, verdicts, _ := g.Check(changes, current, testOwner, &GuardState{}, t0)
	if len(verdicts) != 2 {
		t.Fatalf("verdicts %+v, want zones a and b", verdicts)
	}
	a, b := verdicts[0], verdicts[1]
	if a.Zone != "a.example.com" || !a.Held || a.Deletes != 500 || a.Owned != 500 || a.Digest == "" {
		t.Errorf("zone a: %+v, want 500 of 500 deletes held", a)
	}
	if fmt.Sprint(a.Namespaces) != "[apps]" {
		t.Errorf("zone a's namespaces %v, want [apps] (the objects' namespace, to be told)", a.Namespaces)
	}
	if b.Held || b.Deletes != 5 {
		t.Errorf("zone b: %+v, want 5 deletes let through", b)
	}
	if len(allowed.Delete) != 5 || len(allowed.Create) != 1 {
		t.Errorf("allowed %d deletes and %d creates, want zone b's 5 deletes and the create", len(allowed.Delete), len(allowed.Create))
	}
	// The operator confirms exactly this plan: it passes. A different plan gets a new digest.
	g.Confirmed = []string{a.Digest}
	if allowed, v, _ := g.Check(changes, current, testOwner, &GuardState{}, t0); len(allowed.Delete) != 505 || v[0].Held {
		t.Errorf("confirmed plan: %d deletes, verdict %+v", len(allowed.Delete), v[0])
	}
	other := &Changes{Delete: current[:499]}
	if _, v, _ := g.Check(other, current, testOwner, &GuardState{}, t0); !v[0].Held || v[0].Digest == a.Digest {
		t.Errorf("another plan passed on the old confirmation: %+v", v[0])
	}
}

func TestGuardSmallZonesAndUpdates(t *testing.T) {
	g := Guard{MaxDeleteFraction: 0.3, MaxUpdateFraction: 0.5, MinChanges: 10}
	current := ownedZone("example.com", 12)
	// 10 of 12 deleted: above the fraction, but not above the floor.
	if allowed, v, _ := g.Check(&Changes{Delete: current[:10]}, current, testOwner, &GuardState{}, t0); len(allowed.Delete) != 10 || v[0].Held {
		t.Errorf("small zone held: %+v", v)
	}
	current = ownedZone("example.com", 40)
	var olds, news []*endpoint.Endpoint
	for _, e := range current[:25] {
		n := e.DeepCopy()
		n.Targets = endpoint.Targets{"192.0.2.77"}
		olds, news = append(olds, e), append(news, n)
	}
	allowed, v, _ := g.Check(&Changes{UpdateOld: olds, UpdateNew: news}, current, testOwner, &GuardState{}, t0)
	if !v[0].Held || len(allowed.UpdateNew) != 0 || len(allowed.UpdateOld) != 0 {
		t.Errorf("25 of 40 updated with a 0.5 limit: verdict %+v, %d updates allowed", v, len(allowed.UpdateNew))
	}
	if (Guard{}).Enabled() {
		t.Error("the zero guard is enabled")
	}
}

// A mass delete that reaches the plan in slices (an informer seeing a namespace's objects go one by
// one) is held once the slices add up: deletes settle before they count as judged, and what was
// applied in the window counts against the zone's largest size.
func TestGuardSeesThroughSlices(t *testing.T) {
	g := Guard{MaxDeleteFraction: 0.3, MinChanges: 10, Settle: 3 * time.Second, Window: 10 * time.Minute}
	current := ownedZone("example.com", 500)
	var state GuardState
	now := t0
	deleted := 0
	// Every 100 ms the plan holds 20 more deletes; what is allowed is applied at once.
	for step := 1; step <= 25; step++ {
		now = now.Add(100 * time.Millisecond)
		changes := &Changes{Delete: current[deleted : step*20]}
		allowed, v, recheck := g.Check(changes, current[deleted:], testOwner, &state, now)
		if len(allowed.Delete) > 0 {
			t.Fatalf("step %d: %d deletes applied while the burst was still settling (verdict %+v)", step, len(allowed.Delete), v)
		}
		if step == 1 && !recheck.Equal(now.Add(3*time.Second)) {
			t.Errorf("recheck at %v, want when the first delete has settled", recheck)
		}
	}
	// Settled: the whole burst is judged at once, and held.
	now = now.Add(3 * time.Second)
	allowed, v, _ := g.Check(&Changes{Delete: current}, current, testOwner, &state, now)
	if len(allowed.Delete) != 0 || !v[0].Held {
		t.Fatalf("settled burst of 500: %d deletes allowed, verdict %+v", len(allowed.Delete), v)
	}
	// Slices below the fraction, applied one after the other, add up within the window.
	state = GuardState{}
	now = t0
	for round := 0; round < 10; round++ {
		left := current[deleted:]
		changes := &Changes{Delete: left[:min(50, len(left))]}
		now = now.Add(time.Second)
		g.Check(changes, left, testOwner, &state, now) // first sight
		now = now.Add(4 * time.Second)
		allowed, v, _ := g.Check(changes, left, testOwner, &state, now)
		deleted += len(allowed.Delete)
		if v[0].Held {
			break
		}
	}
	if deleted > 150 {
		t.Errorf("%d of 500 deleted in slices of 50: the window must stop them at 30%%", deleted)
	}
	// After the window, the zone's history starts again.
	now = now.Add(11 * time.Minute)
	left := current[deleted:]
	g.Check(&Changes{Delete: left[:5]}, left, testOwner, &state, now)
	if allowed, _, _ := g.Check(&Changes{Delete: left[:5]}, left, testOwner, &state, now.Add(4*time.Second)); len(allowed.Delete) != 5 {
		t.Errorf("after the window 5 deletes: %d allowed", len(allowed.Delete))
	}
}
