package aws

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// Issue 15 item 4: ListHostedZones answers every zone's ResourceRecordSetCount, 100 zones a page, so
// probing the managed zones of an account costs one call per 100 of its zones instead of one
// GetHostedZone per managed zone (50 zones: 1 call per resync instead of 50, a sixth of the account's
// 5 requests/s at a 1-minute --interval). GetHostedZone stays where it is cheaper: an account with
// more zones than it manages (a --zone-id-filter or --domain-filter picking few of many), or one zone.
func TestCheckZonesProbesManyZonesWithOneListing(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	var seeds []route53emu.SeedZone
	names := []string{"one.test", "two.test", "three.test", "four.test", "five.test"}
	for _, n := range names {
		seeds = append(seeds, route53emu.SeedZone{Name: n, Records: []route53emu.RecordSet{{Name: "a." + n, Type: "A", TTL: num(300), ResourceRecords: values("192.0.2.1")}}})
	}
	zs := seed(t, srv, seeds...)
	p := newProvider(t, url, Config{})
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}

	srv.ClearCalls()
	if stale, err := p.CheckZones(ctxT(t), time.Hour); err != nil || len(stale) != 0 {
		t.Fatalf("idle CheckZones = %v, %v; want nothing stale", stale, err)
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 1 || c["GetHostedZone"] != 0 || len(c) != 1 {
		t.Fatalf("probing 5 zones of a 5-zone account: calls %v, want 1 ListHostedZones", c)
	}

	srv.ClearCalls()
	outOfBand(t, p, zs[2].ID, r53types.ChangeActionCreate, "added.three.test", "192.0.2.9")
	stale, err := p.CheckZones(ctxT(t), time.Hour)
	if err != nil || fmt.Sprint(stale) != "[three.test]" {
		t.Fatalf("CheckZones = %v, %v; want [three.test]", stale, err)
	}
	eps, err := p.Records(ctxT(t))
	if err != nil || !strings.Contains(epNames(eps), "added.three.test=192.0.2.9") {
		t.Fatalf("Records after the probe: %v, %v", epNames(eps), err)
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 1 || c["GetHostedZone"] != 0 || c["ListResourceRecordSets"] != 1 {
		t.Fatalf("one probe listing and the changed zone listed alone: %v", c)
	}

	// A managed zone deleted behind our back is missing from the listing: it is dropped, and the
	// listing that follows finds it gone (left out, named).
	api := p.accounts[0].api
	outOfBand(t, p, zs[4].ID, r53types.ChangeActionDelete, "a.five.test", "192.0.2.1")
	if _, err := api.DeleteHostedZone(ctxT(t), &route53.DeleteHostedZoneInput{Id: ptr(zs[4].ID)}); err != nil {
		t.Fatal(err)
	}
	if stale, err := p.CheckZones(ctxT(t), time.Hour); err != nil || fmt.Sprint(stale) != "[five.test]" {
		t.Fatalf("CheckZones after a zone was deleted = %v, %v; want [five.test]", stale, err)
	}
	if _, err := p.Records(ctxT(t)); err != nil {
		if ue, ok := provider.AsUnreadableZones(err); !ok || fmt.Sprint(ue.Names()) != "[five.test]" {
			t.Fatalf("Records after the zone was deleted: %v", err)
		}
	}

	// One managed zone of five: GetHostedZone is as cheap, and needs no page of other zones.
	one := newProvider(t, url, Config{ZoneIDFilter: []string{zs[0].ID}})
	if _, err := one.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	srv.ClearCalls()
	if stale, err := one.CheckZones(ctxT(t), time.Hour); err != nil || len(stale) != 0 {
		t.Fatalf("CheckZones of one zone = %v, %v", stale, err)
	}
	if c := srv.Counters().Calls; c["GetHostedZone"] != 1 || c["ListHostedZones"] != 0 {
		t.Fatalf("probing one zone of five: calls %v, want 1 GetHostedZone", c)
	}
}
