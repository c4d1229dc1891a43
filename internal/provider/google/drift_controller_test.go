package google

import (
	"testing"
	"time"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// Through the TXT registry and the controller's loop at a 300 ms resync, against the emulator: an
// out-of-band deletion and an out-of-band in-place edit of our record set, each a Change of another
// client, are healed within one resync, and while nothing changes each resync costs one changes.list
// per zone and no listing.
func TestDriftHealedWithinOneResync(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	p := newTestProvider(t, base, key, Config{})
	other := googleClient(t, base, key)
	want := endpoint.NewWithTTL("one.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "service/default/one")
	const interval = 300 * time.Millisecond
	providertest.RunController(t, p, controller.Settings{Interval: interval}, want)

	published := func() (string, int64) {
		for _, rs := range dumpZone(emu, "pub") {
			if rs.Name == "one.example.com." && rs.Type == "A" && len(rs.Rrdatas) == 1 {
				return rs.Rrdatas[0], rs.TTL
			}
		}
		return "", 0
	}
	healed := func(what string) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			if v, ttl := published(); v == "10.0.0.1" && ttl == 300 {
				break
			}
			if time.Since(start) > 5*interval {
				t.Fatalf("%s not healed after %s (bound: one resync, %s)", what, time.Since(start), interval)
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(start)
		t.Logf("%s healed in %s", what, took.Round(10*time.Millisecond))
		return took
	}
	healed("first publication")
	ours := &dns.ResourceRecordSet{Name: "one.example.com.", Type: "A", Ttl: 300, Rrdatas: []string{"10.0.0.1"}}
	if _, err := other.Changes.Create(testProject, "pub", &dns.Change{Deletions: []*dns.ResourceRecordSet{ours}}).Do(); err != nil {
		t.Fatal(err)
	}
	if took := healed("out-of-band deletion"); took > 2*interval {
		t.Errorf("out-of-band deletion healed in %s, beyond one resync (%s) and the run", took, interval)
	}
	if _, err := other.Changes.Create(testProject, "pub", &dns.Change{Deletions: []*dns.ResourceRecordSet{ours},
		Additions: []*dns.ResourceRecordSet{{Name: "one.example.com.", Type: "A", Ttl: 60, Rrdatas: []string{"192.0.2.66"}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	if took := healed("out-of-band in-place edit"); took > 2*interval {
		t.Errorf("out-of-band edit healed in %s, beyond one resync (%s) and the run", took, interval)
	}

	time.Sleep(interval / 2)
	emu.ClearCalls()
	time.Sleep(4 * interval)
	idle := emu.Counters().Calls
	t.Logf("idle for %s: %v", 4*interval, idle)
	if n := idle[googlednsemu.OpChangesList]; n < 2 || n > 5 || len(idle) != 1 {
		t.Errorf("idle calls %v: want one changes.list per resync and nothing else", idle)
	}
}
