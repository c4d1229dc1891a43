package aws

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// --aws-zones-cache-duration, when set, bounds how long the zone list is trusted between full
// relistings: the first resync (CheckZones) after it aged fetches the list again (one ListHostedZones),
// reports the zones that appeared or went, and the next Records lists only the new zone. Without it a
// new zone waited for the full relisting (hours for large zones), however short the duration.
func TestZonesCacheDurationBoundsTheZoneListAge(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test", Records: []route53emu.RecordSet{{Name: "a.one.test", Type: "A", TTL: num(300), ResourceRecords: values("192.0.2.1")}}})
	p := newProvider(t, url, Config{ZonesCacheDuration: 10 * time.Minute})
	now := time.Unix(1_000_000, 0)
	p.now = func() time.Time { return now }
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	seed(t, srv, route53emu.SeedZone{Name: "two.test", Records: []route53emu.RecordSet{{Name: "b.two.test", Type: "A", TTL: num(300), ResourceRecords: values("192.0.2.2")}}})
	srv.ClearCalls()

	now = now.Add(9 * time.Minute)
	if stale, err := p.CheckZones(ctxT(t), 24*time.Hour); err != nil || len(stale) != 0 {
		t.Fatalf("CheckZones before the zone list aged = %v, %v", stale, err)
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 0 {
		t.Fatalf("the zone list is fetched again before it aged: %v", c)
	}

	now = now.Add(time.Minute)
	stale, err := p.CheckZones(ctxT(t), 24*time.Hour)
	if err != nil || fmt.Sprint(stale) != "[two.test]" {
		t.Fatalf("CheckZones once the zone list aged = %v, %v; want the new zone two.test", stale, err)
	}
	eps, err := p.Records(ctxT(t))
	if err != nil || !strings.Contains(epNames(eps), "b.two.test=192.0.2.2") || !strings.Contains(epNames(eps), "a.one.test=192.0.2.1") {
		t.Fatalf("Records after the zone list was fetched again: %v, %v", epNames(eps), err)
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 1 || c["ListResourceRecordSets"] != 1 {
		t.Fatalf("one zone list and a listing of the new zone alone, got %v", c)
	}

	// Without the flag the zone list lives until the full relisting.
	q := newProvider(t, url, Config{})
	q.now = func() time.Time { return now }
	if _, err := q.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	srv.ClearCalls()
	now = now.Add(time.Hour)
	if _, err := q.CheckZones(ctxT(t), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 1 || c["GetHostedZone"] != 0 {
		// Two zones of a two-zone account: the probe is one ListHostedZones, not a zone list.
		t.Fatalf("without --aws-zones-cache-duration: calls %v, want the probe alone", c)
	}
}
