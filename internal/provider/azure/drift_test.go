package azure

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// callCounter is a pacing.Metrics that counts attempts and throttles by "provider/zone/call".
type callCounter struct {
	mu        sync.Mutex
	calls     map[string]int
	throttles map[string]int
}

func newCallCounter() *callCounter {
	return &callCounter{calls: map[string]int{}, throttles: map[string]int{}}
}

func (c *callCounter) APICall(provider, zone, call string, throttled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[provider+"/"+zone+"/"+call]++
	if throttled {
		c.throttles[provider+"/"+zone+"/"+call]++
	}
}
func (c *callCounter) APIRate(string, string, float64) {}

func (c *callCounter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[key]
}

func (c *callCounter) totalThrottles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.throttles {
		n += v
	}
	return n
}

func (c *callCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.throttles = map[string]int{}, map[string]int{}
}

func hasRecord(eps []*endpoint.Endpoint, name, target string) bool {
	return slices.ContainsFunc(eps, func(e *endpoint.Endpoint) bool {
		return e.DNSName == name && len(e.Targets) == 1 && e.Targets[0] == target
	})
}

// The zone probe, for both APIs: an idle CheckZones costs one zone listing and the Records after it no
// call; our own writes keep the cached count right (no relisting after them); a set added or deleted by
// another client moves numberOfRecordSets and drops just that zone; an in-place edit leaves the count
// and is found at the relisting (its period, or --provider-cache-time given as relist). The calls are
// counted under their swagger operationIds, by zone.
func TestZoneProbeFollowsTheRecordSetCount(t *testing.T) {
	for _, private := range []bool{false, true} {
		name, zone, other := "azure", "example.com", "example.org"
		listZones, listSets := azurednsemu.OpZonesListByResourceGroup, azurednsemu.OpRecordSetsListAllByDNSZone
		zonesCall, setsCall := "Zones_ListByResourceGroup", "RecordSets_ListAllByDnsZone"
		if private {
			name, zone, other = "azure-private-dns", "internal.example", "other.example"
			listZones, listSets = azurednsemu.OpPrivateZonesListByResourceGroup, azurednsemu.OpPrivateRecordSetsList
			zonesCall, setsCall = "PrivateZones_ListByResourceGroup", "RecordSets_List"
		}
		t.Run(name, func(t *testing.T) {
			emu, client, path := emulator(t, azurednsemu.Options{})
			sz := []azurednsemu.SeedZone{
				{Name: zone, RecordSets: []azurednsemu.SeedRecordSet{{Name: "www", Type: "A", TTL: 60, Records: []string{"10.0.0.1"}}}},
				{Name: other}}
			if private {
				sz[0].RecordSets = append(sz[0].RecordSets, azurednsemu.SeedRecordSet{Name: "vm1", Type: "A", TTL: 10, Records: []string{"10.0.0.4"}, AutoRegistered: true})
			}
			rg := azurednsemu.SeedResourceGroup{Name: testRG, Zones: sz}
			if private {
				rg = azurednsemu.SeedResourceGroup{Name: testRG, PrivateZones: sz}
			}
			if err := emu.Seed(azurednsemu.Seed{Subscriptions: []azurednsemu.SeedSubscription{{ID: testSub, ResourceGroups: []azurednsemu.SeedResourceGroup{rg}}}}); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			m := newCallCounter()
			p := newTestProvider(t, client, path, Config{Private: private, Metrics: m, Now: func() time.Time { return now }})
			// Another client of the resource group, through the same SDK.
			oob := newTestProvider(t, client, path, Config{Private: private})
			ctx := context.Background()
			if stale, err := p.CheckZones(ctx, 0); err != nil || stale != nil {
				t.Fatalf("before any listing nothing is probed: %v %v", stale, err)
			}
			if _, err := p.Records(ctx); err != nil {
				t.Fatal(err)
			}
			if got := m.get(name + "/" + zone + "/" + setsCall); got != 1 {
				t.Fatalf("calls %v: want one %s of %s", m.calls, setsCall, zone)
			}
			idle := func(what string) {
				t.Helper()
				emu.ClearCalls()
				stale, err := p.CheckZones(ctx, 0)
				if err != nil || len(stale) != 0 {
					t.Fatalf("%s: stale %v (%v), want none", what, stale, err)
				}
				if _, err := p.Records(ctx); err != nil {
					t.Fatal(err)
				}
				c := emu.Counters()
				if c.Total != 1 || c.Calls[listZones] != 1 {
					t.Fatalf("%s: an idle resync made calls %v, want one zone listing", what, c.Calls)
				}
			}
			idle("idle")

			// Our own write: written through, the count follows.
			if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewWithTTL("new."+zone, "A", 60, "10.0.0.2")}}); err != nil {
				t.Fatal(err)
			}
			idle("after our own create")
			if err := p.ApplyChanges(ctx, &plan.Changes{Delete: []*endpoint.Endpoint{endpoint.NewWithTTL("new."+zone, "A", 60, "10.0.0.2")}}); err != nil {
				t.Fatal(err)
			}
			idle("after our own delete")

			// Another client adds a set: the count moves, only that zone is listed again.
			if err := oob.b.put(ctx, zone, recordSet{name: "foreign", typ: "A", ttl: 60, targets: []string{"10.9.9.9"}}); err != nil {
				t.Fatal(err)
			}
			emu.ClearCalls()
			stale, err := p.CheckZones(ctx, 0)
			if err != nil || !slices.Equal(stale, []string{zone}) {
				t.Fatalf("after an out-of-band create: stale %v (%v), want [%s]", stale, err, zone)
			}
			recs, err := p.Records(ctx)
			if err != nil || !hasRecord(recs, "foreign."+zone, "10.9.9.9") {
				t.Fatalf("records after relisting: %v (%v)", recs, err)
			}
			if c := emu.Counters(); c.Calls[listZones] != 1 || c.Calls[listSets] != 1 || c.Total != 2 {
				t.Fatalf("calls %v: want one zone listing and one record-set listing", c.Calls)
			}
			// Another client deletes a set.
			if err := oob.b.remove(ctx, zone, "www", "A"); err != nil {
				t.Fatal(err)
			}
			if stale, err := p.CheckZones(ctx, 0); err != nil || !slices.Equal(stale, []string{zone}) {
				t.Fatalf("after an out-of-band delete: stale %v (%v)", stale, err)
			}
			if recs, err := p.Records(ctx); err != nil || hasRecord(recs, "www."+zone, "10.0.0.1") {
				t.Fatalf("records after relisting: %v (%v)", recs, err)
			}
			// An in-place edit leaves the count: found at the relisting only.
			if err := oob.b.put(ctx, zone, recordSet{name: "foreign", typ: "A", ttl: 60, targets: []string{"10.9.9.8"}}); err != nil {
				t.Fatal(err)
			}
			idle("after an in-place edit, before the relisting period")
			now = now.Add(time.Minute)
			if stale, err := p.CheckZones(ctx, 30*time.Second); err != nil || len(stale) != 2 {
				t.Fatalf("--provider-cache-time 30s, a minute later: stale %v (%v), want both zones", stale, err)
			}
			if recs, err := p.Records(ctx); err != nil || !hasRecord(recs, "foreign."+zone, "10.9.9.8") {
				t.Fatalf("records after the relisting: %v (%v)", recs, err)
			}
			now = now.Add(MinRelistPeriod - time.Second)
			idle("just before the default relisting period")
			now = now.Add(time.Second)
			if stale, err := p.CheckZones(ctx, 0); err != nil || len(stale) != 2 {
				t.Fatalf("at the default relisting period: stale %v (%v), want both zones", stale, err)
			}
			if m.get(name+"//"+zonesCall) == 0 {
				t.Fatalf("calls %v: the zone listing is counted as %s with no zone", m.calls, zonesCall)
			}
		})
	}
}

// numberOfRecordSets as the emulator reports it is the number of sets a listing holds, auto-registered
// private sets and SOA included, after creates and deletes.
func TestEmulatorCountsRecordSets(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.Seed(azurednsemu.Seed{Subscriptions: []azurednsemu.SeedSubscription{{ID: testSub, ResourceGroups: []azurednsemu.SeedResourceGroup{{Name: testRG,
		PrivateZones: []azurednsemu.SeedZone{{Name: "internal.example", RecordSets: []azurednsemu.SeedRecordSet{
			{Name: "vm1", Type: "A", TTL: 10, Records: []string{"10.0.0.4"}, AutoRegistered: true},
			{Name: "vm2", Type: "A", TTL: 10, Records: []string{"10.0.0.5"}, AutoRegistered: true}}}}}}}}}); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{Private: true})
	ctx := context.Background()
	check := func(want int64) {
		t.Helper()
		zs, err := p.b.zones(ctx)
		if err != nil || len(zs) != 1 {
			t.Fatalf("zones %v (%v)", zs, err)
		}
		_, total, err := p.b.recordSets(ctx, "internal.example")
		if err != nil || zs[0].count != total || total != want {
			t.Fatalf("numberOfRecordSets %d, listing %d (%v), want %d", zs[0].count, total, err, want)
		}
	}
	check(3) // SOA and two auto-registered sets
	if err := p.b.put(ctx, "internal.example", recordSet{name: "app", typ: "TXT", ttl: 60, targets: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	check(4)
	if err := p.b.remove(ctx, "internal.example", "app", "TXT"); err != nil {
		t.Fatal(err)
	}
	check(3)
}

// zonekeeper plan's cost: one call per record set written or deleted, none for a set a virtual
// network link registered, and no call made to estimate it.
func TestEstimateCalls(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.Seed(azurednsemu.Seed{Subscriptions: []azurednsemu.SeedSubscription{{ID: testSub, ResourceGroups: []azurednsemu.SeedResourceGroup{{Name: testRG,
		PrivateZones: []azurednsemu.SeedZone{{Name: "internal.example", RecordSets: []azurednsemu.SeedRecordSet{
			{Name: "vm1", Type: "A", TTL: 10, Records: []string{"10.0.0.4"}, AutoRegistered: true}}}, {Name: "other.example"}}}}}}}); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{Private: true})
	ctx := context.Background()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	est, err := p.EstimateCalls(ctx, &plan.Changes{
		Create: []*endpoint.Endpoint{endpoint.NewWithTTL("a.internal.example", "A", 60, "10.0.0.1"), endpoint.NewWithTTL("a-a.internal.example", "TXT", 60, "x")},
		Delete: []*endpoint.Endpoint{endpoint.NewWithTTL("vm1.internal.example", "A", 10, "10.0.0.4"), endpoint.NewWithTTL("b.other.example", "A", 60, "10.0.0.2")}})
	if err != nil || est.Calls != 3 || est.Zones != 2 || est.Call != "RecordSets_Delete, RecordSets_CreateOrUpdate" {
		t.Fatalf("estimate %+v (%v), want 3 calls (the auto-registered delete is refused without one) in 2 zones", est, err)
	}
	if c := emu.Counters(); c.Total != 0 {
		t.Fatalf("estimating made calls %v", c.Calls)
	}
}
