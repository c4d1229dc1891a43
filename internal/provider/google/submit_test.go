package google

import (
	"fmt"
	"strings"
	"testing"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// A record set changed behind the provider's back since it was listed: Cloud DNS answers 412 to the
// deletion planned on the old listing; the provider lists that zone again and sends the change
// rebuilt from what is there, so the update lands in one sync with one extra list and change.
func TestStaleListingIsReplanned(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com.", RRSets: []googlednsemu.SeedRRSet{
		{Name: "www", Type: "A", TTL: 300, Rrdatas: []string{"192.0.2.1"}}}},
		googlednsemu.SeedZone{Name: "other", DNSName: "example.org."})
	p := newTestProvider(t, base, key, Config{})
	ctx := testCtx(t)
	cur, err := p.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Someone else changes the set (its TTL), so the provider's deletion no longer matches.
	emu2 := googleClient(t, base, key)
	if _, err := emu2.Changes.Create(testProject, "pub", &dns.Change{
		Deletions: []*dns.ResourceRecordSet{{Name: "www.example.com.", Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.1"}}},
		Additions: []*dns.ResourceRecordSet{{Name: "www.example.com.", Type: "A", Ttl: 60, Rrdatas: []string{"192.0.2.1"}}},
	}).Do(); err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	var old *endpoint.Endpoint
	for _, e := range cur {
		if e.DNSName == "www.example.com" {
			old = e
		}
	}
	err = p.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{old},
		UpdateNew: []*endpoint.Endpoint{ep("www.example.com", "A", 300, "192.0.2.2")},
		Create:    []*endpoint.Endpoint{ep("new.example.org", "A", 300, "192.0.2.3")}})
	if err != nil {
		t.Fatalf("ApplyChanges: %v", err)
	}
	got := setsOf(emu, "pub")
	if got["www.example.com. A"] != "300 192.0.2.2" {
		t.Fatalf("www after the sync: %q", got["www.example.com. A"])
	}
	if setsOf(emu, "other")["new.example.org. A"] != "300 192.0.2.3" {
		t.Fatal("the other zone's change was not applied")
	}
	c := emu.Counters()
	// pub: the stale change (412), one list, the rebuilt change; other: its change.
	if c.Calls[googlednsemu.OpChangesPost] != 3 || c.Calls[googlednsemu.OpRRSetsList] != 1 || c.Errors[googlednsemu.OpChangesPost+":conditionNotMet"] != 1 {
		t.Fatalf("calls %+v errors %+v", c.Calls, c.Errors)
	}
}

// An addition of a set someone else created meanwhile (409 alreadyExists) is replanned the same way:
// the set is replaced.
func TestAdditionOfExistingSetIsReplanned(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	p := newTestProvider(t, base, key, Config{})
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := googleClient(t, base, key).Changes.Create(testProject, "pub", &dns.Change{
		Additions: []*dns.ResourceRecordSet{{Name: "a.example.com.", Type: "TXT", Ttl: 60, Rrdatas: []string{`"x"`}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.com", "TXT", 0, `"mine"`)}}); err != nil {
		t.Fatal(err)
	}
	if got := setsOf(emu, "pub")["a.example.com. TXT"]; got != `300 "mine"` {
		t.Fatalf("a.example.com TXT: %q", got)
	}
}

// One record set Cloud DNS refuses among 200 in one Change: the Change is bisected, the refused set's
// change is rejected with Cloud DNS's reason, the 199 others are written, in at most 17 Changes.
func TestRefusedSetIsBisectedOut(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	if err := emu.FailChanges(googlednsemu.ChangeFailure{RecordName: "host77.example.com.", Status: 400, Reason: "invalid", Message: "record refused for the test"}); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, base, key, Config{})
	var creates []*endpoint.Endpoint
	for i := range 200 {
		creates = append(creates, ep(fmt.Sprintf("host%d.example.com", i), "A", 300, fmt.Sprintf("10.0.%d.%d", i/200, i%200+1)))
	}
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	err := p.ApplyChanges(ctx, &plan.Changes{Create: creates})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.DNSName != "host77.example.com" ||
		!strings.Contains(ae.Rejected[0].Err.Error(), "record refused for the test") {
		t.Fatalf("ApplyChanges: %v", err)
	}
	got := setsOf(emu, "pub")
	if len(got) != 199+2 { // and the zone's SOA and NS
		t.Fatalf("%d sets in the zone, want 201", len(got))
	}
	if n := emu.Counters().Calls[googlednsemu.OpChangesPost]; n > 17 {
		t.Fatalf("%d changes sent, want at most 17", n)
	}
}

// Changes hold at most --google-batch-change-size additions plus deletions, the sets of one name
// always in the same Change; the API answers every Change.
func TestBatchesKeepNamesTogether(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com.", RRSets: []googlednsemu.SeedRRSet{
		{Name: "svc", Type: "A", TTL: 300, Rrdatas: []string{"192.0.2.1"}}}})
	p := newTestProvider(t, base, key, Config{BatchChangeSize: 3})
	ctx := testCtx(t)
	cur, err := p.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var old *endpoint.Endpoint
	for _, e := range cur {
		if e.DNSName == "svc.example.com" {
			old = e
		}
	}
	emu.ClearCalls()
	err = p.ApplyChanges(ctx, &plan.Changes{
		Delete: []*endpoint.Endpoint{old},
		Create: []*endpoint.Endpoint{
			ep("svc.example.com", "CNAME", 300, "lb.example.net"), ep("a-svc.example.com", "TXT", 300, `"o"`),
			ep("b.example.com", "A", 300, "192.0.2.2"), ep("c.example.com", "A", 300, "192.0.2.3"),
			ep("d.example.com", "A", 300, "192.0.2.4"), ep("e.example.com", "A", 300, "192.0.2.5"),
		}})
	if err != nil {
		t.Fatal(err)
	}
	// a-svc, b, c | d, e | svc (the deletion of its A and the addition of its CNAME, together).
	if n := emu.Counters().Calls[googlednsemu.OpChangesPost]; n != 3 {
		t.Fatalf("%d changes, want 3", n)
	}
	got := setsOf(emu, "pub")
	if got["svc.example.com. CNAME"] != "300 lb.example.net." || got["svc.example.com. A"] != "" {
		t.Fatalf("svc: %v", got)
	}
}

// setsOf returns a zone's sets as "NAME TYPE" → "TTL RRDATA…".
func setsOf(emu *googlednsemu.Server, zone string) map[string]string {
	out := map[string]string{}
	for _, rs := range dumpZone(emu, zone) {
		out[rs.Name+" "+rs.Type] = fmt.Sprint(rs.TTL) + " " + strings.Join(rs.Rrdatas, " ")
	}
	return out
}
