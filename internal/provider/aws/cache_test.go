package aws

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// After one listing, an event-driven change costs one ChangeResourceRecordSets and no listing; Records
// serves the patched cache; Invalidate (the resync) lists again.
func TestWriteThroughCache(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	var recs []route53emu.RecordSet
	for i := range 700 {
		recs = append(recs, route53emu.RecordSet{Name: fmt.Sprintf("r%d.example.com", i), Type: "A", TTL: num(60), ResourceRecords: values("192.0.2.1")})
	}
	seed(t, srv, route53emu.SeedZone{Name: "example.com", Records: recs})
	p := newProvider(t, url, Config{})
	got, err := p.Records(ctxT(t))
	if err != nil || len(got) != 700 {
		t.Fatalf("Records: %d, %v", len(got), err)
	}
	c := srv.Counters().Calls
	// 702 sets (SOA and NS included) in pages of 300.
	if c["ListHostedZones"] != 1 || c["ListResourceRecordSets"] != 3 {
		t.Fatalf("initial listing: %v", c)
	}
	srv.ClearCalls()

	rec, txt := owned("new.example.com", "10.0.0.1", "web")
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{rec, txt}}); err != nil {
		t.Fatal(err)
	}
	got, err = p.Records(ctxT(t))
	if err != nil || len(got) != 702 {
		t.Fatalf("Records after the change: %d, %v", len(got), err)
	}
	c = srv.Counters().Calls
	if len(c) != 1 || c["ChangeResourceRecordSets"] != 1 {
		t.Fatalf("one change must cost one ChangeResourceRecordSets and nothing else, got %v", c)
	}

	srv.ClearCalls()
	p.Invalidate()
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if c = srv.Counters().Calls; c["ListHostedZones"] != 1 || c["ListResourceRecordSets"] != 3 {
		t.Fatalf("after Invalidate Records must list again: %v", c)
	}
}

// --aws-zones-cache-duration keeps the zone list across a resync.
func TestZonesCacheDuration(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{ZonesCacheDuration: 3600e9})
	for range 3 {
		p.Invalidate()
		if _, err := p.Records(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
	if c := srv.Counters().Calls; c["ListHostedZones"] != 1 || c["ListResourceRecordSets"] != 3 {
		t.Fatalf("zone list must be cached for an hour: %v", c)
	}
}
