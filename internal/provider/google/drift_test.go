package google

import (
	"slices"
	"testing"
	"time"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

func hasEndpoint(eps []*endpoint.Endpoint, name string, ttl endpoint.TTL, target string) bool {
	for _, e := range eps {
		if e.DNSName == name && e.RecordTTL == ttl && slices.Contains(e.Targets, target) {
			return true
		}
	}
	return false
}

// The zone probe is each zone's latest Change (changes.list by change sequence, descending, one
// result), against the emulator through the official client: our own Changes are not taken for drift,
// an unchanged zone is not listed again, and a Change another client makes (an addition, an in-place
// edit) makes that zone alone listed again. Calls are counted by the emulator.
func TestZoneProbeFollowsTheLatestChange(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."}, googlednsemu.SeedZone{Name: "org", DNSName: "example.org."})
	p := newTestProvider(t, base, key, Config{})
	other := googleClient(t, base, key)
	ctx := testCtx(t)
	calls := func() map[string]int {
		c := emu.Counters().Calls
		emu.ClearCalls()
		return c
	}
	const relist = time.Hour

	if stale, err := p.CheckZones(ctx, relist); err != nil || len(stale) != 0 || len(calls()) != 0 {
		t.Fatalf("before any listing: stale %v, %v; the probe must cost nothing", stale, err)
	}
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if c := calls(); c[googlednsemu.OpZonesList] != 1 || c[googlednsemu.OpChangesList] != 2 || c[googlednsemu.OpRRSetsList] != 2 {
		t.Fatalf("first listing: %v, want the zone list, and per zone its latest change and its sets", c)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.com", "A", 300, "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	calls()
	stale, err := p.CheckZones(ctx, relist)
	if err != nil || len(stale) != 0 {
		t.Fatalf("after our own Change: stale %v, %v; want none", stale, err)
	}
	if c := calls(); c[googlednsemu.OpChangesList] != 2 || len(c) != 1 {
		t.Fatalf("probe: %v, want one changes.list per zone and nothing else", c)
	}
	eps, err := p.Records(ctx)
	if err != nil || !hasEndpoint(eps, "a.example.com", 300, "192.0.2.1") {
		t.Fatalf("Records after the write: %v, %v", eps, err)
	}
	if c := calls(); len(c) != 0 {
		t.Fatalf("Records with nothing changed: %v, want no call", c)
	}

	// Another client adds a set to example.org.
	if _, err := other.Changes.Create(testProject, "org", &dns.Change{Additions: []*dns.ResourceRecordSet{
		{Name: "b.example.org.", Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.2"}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	if stale, err = p.CheckZones(ctx, relist); err != nil || !slices.Equal(stale, []string{"org"}) {
		t.Fatalf("after an out-of-band addition: stale %v, %v; want org", stale, err)
	}
	calls()
	eps, err = p.Records(ctx)
	if err != nil || !hasEndpoint(eps, "b.example.org", 300, "192.0.2.2") || !hasEndpoint(eps, "a.example.com", 300, "192.0.2.1") {
		t.Fatalf("Records after the addition: %v, %v", eps, err)
	}
	if c := calls(); c[googlednsemu.OpRRSetsList] != 1 || c[googlednsemu.OpChangesList] != 1 || c[googlednsemu.OpZonesList] != 0 {
		t.Fatalf("relisting: %v, want org alone listed (its latest change and its sets)", c)
	}

	// Another client edits our set in place (same name and type, another TTL).
	if _, err := other.Changes.Create(testProject, "pub", &dns.Change{
		Deletions: []*dns.ResourceRecordSet{{Name: "a.example.com.", Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.1"}}},
		Additions: []*dns.ResourceRecordSet{{Name: "a.example.com.", Type: "A", Ttl: 60, Rrdatas: []string{"192.0.2.1"}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	if stale, err = p.CheckZones(ctx, relist); err != nil || !slices.Equal(stale, []string{"pub"}) {
		t.Fatalf("after an out-of-band in-place edit: stale %v, %v; want pub", stale, err)
	}
	if eps, err = p.Records(ctx); err != nil || !hasEndpoint(eps, "a.example.com", 60, "192.0.2.1") {
		t.Fatalf("Records after the edit: %v, %v", eps, err)
	}

	// Someone else's Change just before ours: ours does not hide it.
	if _, err := other.Changes.Create(testProject, "pub", &dns.Change{Additions: []*dns.ResourceRecordSet{
		{Name: "c.example.com.", Type: "A", Ttl: 300, Rrdatas: []string{"192.0.2.3"}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep("d.example.com", "A", 300, "192.0.2.4")}}); err != nil {
		t.Fatal(err)
	}
	if stale, err = p.CheckZones(ctx, relist); err != nil || !slices.Equal(stale, []string{"pub"}) {
		t.Fatalf("after a Change of someone else before ours: stale %v, %v; want pub", stale, err)
	}
	if eps, err = p.Records(ctx); err != nil || !hasEndpoint(eps, "c.example.com", 300, "192.0.2.3") || !hasEndpoint(eps, "d.example.com", 300, "192.0.2.4") {
		t.Fatalf("Records: %v, %v", eps, err)
	}

	// The default relisting period: 1 % of the project's rate, at least MinRelistPeriod (these two
	// one-page zones at the test's 1,000 requests/s would allow 1 s).
	if stale, err = p.CheckZones(ctx, 0); err != nil || len(stale) != 0 {
		t.Fatalf("default period, nothing changed: stale %v, %v", stale, err)
	}
	later := time.Now().Add(MinRelistPeriod)
	p.now = func() time.Time { return later }
	if stale, err = p.CheckZones(ctx, 0); err != nil || len(stale) != 2 {
		t.Fatalf("default period passed: stale %v, %v; want both zones", stale, err)
	}
	p.now = time.Now
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}

	// Past the relisting period everything is listed again, zones included.
	now := time.Now()
	p.now = func() time.Time { return now.Add(relist) }
	if stale, err = p.CheckZones(ctx, relist); err != nil || len(stale) != 2 {
		t.Fatalf("after the relisting period: stale %v, %v; want both zones", stale, err)
	}
	calls()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if c := calls(); c[googlednsemu.OpZonesList] != 1 || c[googlednsemu.OpRRSetsList] != 2 {
		t.Fatalf("full relisting: %v", c)
	}
}

// A probe refused for permissions (403: a custom role without dns.changes.list) lists that zone at
// every resync instead of failing the probe; a zone gone from the project (404) relists everything.
func TestZoneProbeRefusedOrZoneGone(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."}, googlednsemu.SeedZone{Name: "org", DNSName: "example.org."})
	p := newTestProvider(t, base, key, Config{})
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(googlednsemu.Fault{Operation: googlednsemu.OpChangesList, Zone: "org", Status: 403, Reason: "forbidden", Count: 1}); err != nil {
		t.Fatal(err)
	}
	stale, err := p.CheckZones(ctx, time.Hour)
	if err != nil || !slices.Equal(stale, []string{"org"}) {
		t.Fatalf("probe refused for org: stale %v, %v; want org and no error", stale, err)
	}
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddFault(googlednsemu.Fault{Operation: googlednsemu.OpChangesList, Zone: "pub", Status: 404, Reason: "notFound", Count: 1}); err != nil {
		t.Fatal(err)
	}
	if stale, err = p.CheckZones(ctx, time.Hour); err != nil || len(stale) != 2 {
		t.Fatalf("zone gone: stale %v, %v; want every zone", stale, err)
	}
	emu.ClearCalls()
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if c := emu.Counters().Calls; c[googlednsemu.OpZonesList] != 1 {
		t.Fatalf("after a zone was gone: %v, want the zones listed again", c)
	}
}
