package azure

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// recordSetOf is the emulator's record set of a zone, or nil.
func recordSetOf(emu *azurednsemu.Server, zone, name, typ string) *azurednsemu.RecordSetDump {
	for _, z := range emu.Dump() {
		if z.Name != zone {
			continue
		}
		for _, rs := range z.RecordSets {
			if rs.Name == name && rs.Type == typ {
				return &rs
			}
		}
	}
	return nil
}

// Through the TXT registry and the controller's loop at a 300 ms resync with --provider-cache-time
// 1.5 s, against the emulator: an out-of-band delete of our record set and an out-of-band create of
// ours (an ownership TXT with its record, which no object asks for) are healed within one resync by
// the count probe; an in-place edit is healed at the relisting; a foreign record is never touched;
// while idle each resync costs one zone listing and nothing else.
func TestDriftHealedByTheProbe(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{})
	oob := newTestProvider(t, client, path, Config{})
	const interval, cacheTime = 300 * time.Millisecond, 1500 * time.Millisecond
	want := endpoint.NewWithTTL("one.example.com", "A", 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "service/default/one")
	providertest.RunController(t, p, controller.Settings{Interval: interval, ProviderCacheTime: cacheTime}, want)
	ctx := context.Background()

	until := func(what string, bound time.Duration, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > bound+5*interval {
				t.Fatalf("%s not healed after %s (bound %s)", what, time.Since(start), bound)
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(start)
		t.Logf("%s healed in %s (bound %s plus the run)", what, took.Round(10*time.Millisecond), bound)
		return took
	}
	published := func() bool {
		rs := recordSetOf(emu, "example.com", "one", "A")
		return rs != nil && len(rs.Records) == 1 && rs.Records[0] == "10.0.0.1" && rs.TTL == 300
	}
	until("first publication", interval, published)

	if err := oob.b.remove(ctx, "example.com", "one", "A"); err != nil {
		t.Fatal(err)
	}
	if took := until("out-of-band delete", interval, published); took > 2*interval+200*time.Millisecond {
		t.Errorf("out-of-band delete healed in %s, beyond one resync (%s) and the run", took, interval)
	}
	// A record of ours that no object asks for: its ownership TXT says zk owns it.
	txtOwn := fmt.Sprintf("heritage=external-dns,external-dns/owner=zk,external-dns/resource=service/default/gone")
	if err := oob.b.put(ctx, "example.com", recordSet{name: "a-gone", typ: "TXT", ttl: 300, targets: []string{txtOwn}}); err != nil {
		t.Fatal(err)
	}
	if err := oob.b.put(ctx, "example.com", recordSet{name: "gone", typ: "A", ttl: 300, targets: []string{"10.0.0.9"}}); err != nil {
		t.Fatal(err)
	}
	if took := until("out-of-band create of ours", interval, func() bool { return recordSetOf(emu, "example.com", "gone", "A") == nil }); took > 2*interval+200*time.Millisecond {
		t.Errorf("out-of-band create healed in %s, beyond one resync (%s) and the run", took, interval)
	}
	if err := oob.b.put(ctx, "example.com", recordSet{name: "foreign", typ: "A", ttl: 60, targets: []string{"192.0.2.1"}}); err != nil {
		t.Fatal(err)
	}
	// The foreign set moved the count: let the probe relist the zone before the edit, so that only
	// the relisting can find the edit.
	time.Sleep(2 * interval)
	if err := oob.b.put(ctx, "example.com", recordSet{name: "one", typ: "A", ttl: 60, targets: []string{"192.0.2.66"}}); err != nil {
		t.Fatal(err)
	}
	if took := until("out-of-band in-place edit", cacheTime+interval, published); took < cacheTime-3*interval {
		t.Errorf("in-place edit healed in %s: before the relisting (%s), so something else relisted", took, cacheTime)
	}

	time.Sleep(interval / 2)
	emu.ClearCalls()
	time.Sleep(4 * interval)
	idle := emu.Counters().Calls
	t.Logf("idle for %s: %v", 4*interval, idle)
	if n := idle[azurednsemu.OpZonesListByResourceGroup]; n < 2 || n > 5 || idle[azurednsemu.OpRecordSetsListAllByDNSZone] > 1 {
		t.Errorf("idle calls %v: want one zone listing per resync (and at most one relisting, at the cache time)", idle)
	}
	if rs := recordSetOf(emu, "example.com", "foreign", "A"); rs == nil || rs.Records[0] != "192.0.2.1" || rs.TTL != 60 {
		t.Errorf("the foreign record was touched: %+v", rs)
	}
}
