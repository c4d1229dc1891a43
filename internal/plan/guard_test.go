package plan

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

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
	allowed, verdicts := g.Check(changes, current, testOwner)
	if len(verdicts) != 2 {
		t.Fatalf("verdicts %+v, want zones a and b", verdicts)
	}
	a, b := verdicts[0], verdicts[1]
	if a.Zone != "a.example.com" || !a.Held || a.Deletes != 500 || a.Owned != 500 || a.Digest == "" {
		t.Errorf("zone a: %+v, want 500 of 500 deletes held", a)
	}
	if b.Held || b.Deletes != 5 {
		t.Errorf("zone b: %+v, want 5 deletes let through", b)
	}
	if len(allowed.Delete) != 5 || len(allowed.Create) != 1 {
		t.Errorf("allowed %d deletes and %d creates, want zone b's 5 deletes and the create", len(allowed.Delete), len(allowed.Create))
	}
	// The operator confirms exactly this plan: it passes. A different plan gets a new digest.
	g.Confirmed = []string{a.Digest}
	if allowed, v := g.Check(changes, current, testOwner); len(allowed.Delete) != 505 || v[0].Held {
		t.Errorf("confirmed plan: %d deletes, verdict %+v", len(allowed.Delete), v[0])
	}
	other := &Changes{Delete: current[:499]}
	if _, v := g.Check(other, current, testOwner); !v[0].Held || v[0].Digest == a.Digest {
		t.Errorf("another plan passed on the old confirmation: %+v", v[0])
	}
}

func TestGuardSmallZonesAndUpdates(t *testing.T) {
	g := Guard{MaxDeleteFraction: 0.3, MaxUpdateFraction: 0.5, MinChanges: 10}
	current := ownedZone("example.com", 12)
	// 10 of 12 deleted: above the fraction, but not above the floor.
	if allowed, v := g.Check(&Changes{Delete: current[:10]}, current, testOwner); len(allowed.Delete) != 10 || v[0].Held {
		t.Errorf("small zone held: %+v", v)
	}
	current = ownedZone("example.com", 40)
	var olds, news []*endpoint.Endpoint
	for _, e := range current[:25] {
		n := e.DeepCopy()
		n.Targets = endpoint.Targets{"192.0.2.77"}
		olds, news = append(olds, e), append(news, n)
	}
	allowed, v := g.Check(&Changes{UpdateOld: olds, UpdateNew: news}, current, testOwner)
	if !v[0].Held || len(allowed.UpdateNew) != 0 || len(allowed.UpdateOld) != 0 {
		t.Errorf("25 of 40 updated with a 0.5 limit: verdict %+v, %d updates allowed", v, len(allowed.UpdateNew))
	}
	if (Guard{}).Enabled() {
		t.Error("the zero guard is enabled")
	}
}
