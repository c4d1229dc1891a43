package google

import (
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
)

// Probe is one call (a zone page of one), fails while the API fails (after the transport's two
// retries of a 5xx), and answers nil once it is back.
func TestProbe(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."}, googlednsemu.SeedZone{Name: "org", DNSName: "example.org."})
	p := newTestProvider(t, base, key, Config{})
	ctx := testCtx(t)
	if err := emu.AddFault(googlednsemu.Fault{Operation: googlednsemu.OpZonesList, Status: 503, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if err := p.Probe(ctx); err == nil || !strings.Contains(err.Error(), "Cloud DNS answered HTTP 503") {
		t.Fatalf("Probe during the outage: %v", err)
	}
	emu.ClearCalls()
	if err := p.Probe(ctx); err != nil {
		t.Fatalf("Probe after the outage: %v", err)
	}
	c := emu.Counters()
	if c.Calls[googlednsemu.OpZonesList] != 1 || c.Total-c.Calls[googlednsemu.OpToken] != 1 {
		t.Fatalf("a probe cost %v", c.Calls)
	}
}
