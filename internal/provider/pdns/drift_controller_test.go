package pdns

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// Through the TXT registry and the controller's loop, at a 300 ms resync: an out-of-band delete and an
// out-of-band in-place edit of our record, both through the PowerDNS API, are healed within one resync
// (the serial moved), and while nothing changes each resync costs one GET of the zone list.
func TestDriftHealedWithinOneResync(t *testing.T) {
	s := startServer(t)
	p, reqs := countingProvider(t, s, "example.com")
	want := endpoint.NewWithTTL("one.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "service/default/one")
	const interval = 300 * time.Millisecond
	providertest.RunController(t, p, controller.Settings{Interval: interval}, want)

	published := func() string {
		rs, ok := s.rrsets(t, "example.com")["one.example.com A"]
		if !ok || len(rs.Records) != 1 {
			return ""
		}
		return rs.Records[0].Content
	}
	healed := func(what string) time.Duration {
		t.Helper()
		start := time.Now()
		for published() != "10.0.0.1" {
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

	s.pdns.API(t, http.MethodPatch, "/api/v1/servers/localhost/zones/example.com.", patchBody{RRsets: []rrset{
		{Name: "one.example.com.", Type: "A", ChangeType: changeDelete}}})
	if took := healed("out-of-band delete"); took > 2*interval {
		t.Errorf("out-of-band delete healed in %s, beyond one resync (%s) and the run", took, interval)
	}
	s.seed(t, "example.com", "one.example.com", "A", 300, "192.0.2.66")
	if took := healed("out-of-band in-place edit"); took > 2*interval {
		t.Errorf("out-of-band edit healed in %s, beyond one resync (%s) and the run", took, interval)
	}

	time.Sleep(interval / 2)
	reqs.take()
	time.Sleep(4 * interval)
	idle := reqs.take()
	t.Logf("idle for %s: %v", 4*interval, idle)
	if len(idle) < 2 || len(idle) > 5 {
		t.Errorf("idle requests %v: want one zone list per resync", idle)
	}
	for _, r := range idle {
		if r != "GET /zones" {
			t.Errorf("idle request %s: want only GET /zones (no zone read, no write)", r)
		}
	}
	if strings.Contains(strings.Join(idle, ","), "PATCH") {
		t.Error("a write while idle")
	}
}
