package google

import (
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
)

// A project with no managed zone when zonekeeper starts: the zone list is listed again at the
// relisting period like any zone, so a zone created later is found (before, with no zone to age,
// CheckZones never asked for a relisting and the new zone stayed unknown until a restart).
func TestZoneCreatedLaterIsFoundAtTheRelisting(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	p := newTestProvider(t, base, key, Config{})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	ctx := testCtx(t)
	if eps, err := p.Records(ctx); err != nil || len(eps) != 0 {
		t.Fatalf("no zone: %v, %v", eps, err)
	}
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	const relist = time.Hour
	if stale, err := p.CheckZones(ctx, relist); err != nil || len(stale) != 0 {
		t.Fatalf("before the relisting period: stale %v, %v; want none", stale, err)
	}
	now = now.Add(relist)
	if _, err := p.CheckZones(ctx, relist); err != nil {
		t.Fatal(err)
	}
	if err := applyCreates(t, p, ep("a.example.com", "A", 300, "192.0.2.1")); err != nil {
		t.Fatalf("a record in the zone created later: %v", err)
	}
	eps, err := p.Records(ctx)
	if err != nil || !hasEndpoint(eps, "a.example.com", 300, "192.0.2.1") {
		t.Fatalf("Records after the relisting: %v, %v", eps, err)
	}
}
