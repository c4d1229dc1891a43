package cloudflare

import (
	"context"
	"strings"
	"testing"
	"time"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// outOfBand is another client of the account (another tool, the dashboard): the official SDK with a
// token of its own.
func outOfBand(base string) *cf.Client {
	return cf.NewClient(option.WithBaseURL(base), option.WithAPIToken("out-of-band"), option.WithMaxRetries(0))
}

// published returns the content of the emulator's records of a name and type.
func published(emu *cloudflareemu.Server, zone, name, typ string) []string {
	var out []string
	for _, r := range dumpZone(emu, zone) {
		if r.Name == name && r.Type == typ {
			out = append(out, r.Content)
		}
	}
	return out
}

// waitFor polls until ok or the bound passes, and returns how long it took.
func waitFor(t *testing.T, what string, bound time.Duration, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !ok() {
		if time.Since(start) > bound {
			t.Fatalf("%s: not done after %s", what, bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	t.Logf("%s: %s", what, took.Round(10*time.Millisecond))
	return took
}

// recordID finds the id of a record by name and type through the SDK.
func recordID(t *testing.T, c *cf.Client, zoneID, name, typ string) string {
	t.Helper()
	res, err := c.DNS.Records.List(context.Background(), dns.RecordListParams{ZoneID: cf.F(zoneID),
		Name: cf.F(dns.RecordListParamsName{Exact: cf.F(name)}), Type: cf.F(dns.RecordListParamsType(typ))})
	if err != nil || len(res.Result) != 1 {
		t.Fatalf("finding %s %s: %v (%d found)", name, typ, err, len(res.Result))
	}
	return res.Result[0].ID
}

// Through the TXT registry and the controller's loop at a 300 ms resync, against the emulator through
// the SDK, with --provider-cache-time an hour: an out-of-band deletion of our record and an
// out-of-band creation of a record with our ownership TXT (each moves the zone's record count) are
// healed within one resync; a foreign record added out of band is never touched; and while nothing
// changes each resync costs one count probe (dns_records.list, per_page=5) per zone and nothing else,
// counted in the metrics.
func TestDriftHealedWithinOneResync(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	ids := seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"}, cloudflareemu.SeedZone{Name: "example.org"})
	m := &countingMetrics{}
	p := newTestProvider(t, base, Config{Accounts: newAccounts(1000, m)})
	other := outOfBand(base)
	want := []*endpoint.Endpoint{
		endpoint.NewWithTTL("one.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "service/default/one"),
		endpoint.NewWithTTL("two.example.org", endpoint.RecordTypeA, 300, "10.0.0.2").WithLabel(endpoint.ResourceLabelKey, "service/default/two"),
	}
	const interval = 300 * time.Millisecond
	providertest.RunController(t, p, controller.Settings{Interval: interval, ProviderCacheTime: time.Hour}, want...)
	ctx := context.Background()
	is := func(zone, name, typ string, targets ...string) func() bool {
		return func() bool { return strings.Join(published(emu, zone, name, typ), ",") == strings.Join(targets, ",") }
	}
	waitFor(t, "first publication", 5*time.Second, is("example.com", "one.example.com", "A", "10.0.0.1"))
	waitFor(t, "first publication", 5*time.Second, is("example.org", "two.example.org", "A", "10.0.0.2"))

	// Our record deleted behind our back.
	if _, err := other.DNS.Records.Delete(ctx, recordID(t, other, ids["example.com"], "one.example.com", "A"),
		dns.RecordDeleteParams{ZoneID: cf.F(ids["example.com"])}); err != nil {
		t.Fatal(err)
	}
	if took := waitFor(t, "out-of-band deletion healed", 10*interval, is("example.com", "one.example.com", "A", "10.0.0.1")); took > 3*interval {
		t.Errorf("out-of-band deletion healed in %s, beyond one resync (%s) and the run", took, interval)
	}
	// A foreign record: no ownership TXT. It moves the count, so the zone is listed
	// again, and is left alone. (Made after the deletion is healed: together they would leave the count.)
	if _, err := other.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cf.F(ids["example.com"]),
		Body: newBody(write{name: "foreign.example.com", typ: "A", target: "192.0.2.9", ttl: 300})}); err != nil {
		t.Fatal(err)
	}
	// A record of ours that no object asks for (with our ownership TXT): deleted.
	for _, w := range []write{
		{name: "stale.example.org", typ: "A", target: "192.0.2.7", ttl: 300},
		{name: "a-stale.example.org", typ: "TXT", target: `"heritage=external-dns,external-dns/owner=zk,external-dns/resource=service/default/stale"`, ttl: 300},
	} {
		if _, err := other.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cf.F(ids["example.org"]), Body: newBody(w)}); err != nil {
			t.Fatal(err)
		}
	}
	if took := waitFor(t, "out-of-band creation of ours healed", 10*interval, is("example.org", "stale.example.org", "A")); took > 3*interval {
		t.Errorf("out-of-band creation healed in %s, beyond one resync (%s) and the run", took, interval)
	}
	if got := published(emu, "example.com", "foreign.example.com", "A"); len(got) != 1 || got[0] != "192.0.2.9" {
		t.Errorf("the foreign record was touched: %v", got)
	}

	time.Sleep(interval / 2)
	emu.ClearCalls()
	before := m.callCount("example.com", "dns_records.list") + m.callCount("example.org", "dns_records.list")
	const resyncs = 5
	time.Sleep(resyncs * interval)
	calls := emu.Calls()
	probes := 0
	for _, c := range calls {
		if c.Operation != cloudflareemu.OpRecordsList || !strings.Contains(c.Query, "per_page=5") {
			t.Errorf("idle call that is not a count probe: %s %s?%s", c.Operation, c.Path, c.Query)
			continue
		}
		probes++
	}
	counted := m.callCount("example.com", "dns_records.list") + m.callCount("example.org", "dns_records.list") - before
	t.Logf("idle for %d resyncs of 2 zones: %d calls, %d count probes, %d counted in the metrics", resyncs, len(calls), probes, counted)
	if probes < 2*(resyncs-1) || probes > 2*(resyncs+1) {
		t.Errorf("%d probes in %d resyncs of 2 zones: want one per zone and resync", probes, resyncs)
	}
	if counted < probes-2 || counted > probes+2 {
		t.Errorf("the metrics counted %d dns_records.list calls, the emulator %d", counted, probes)
	}
}

// An in-place edit of our record leaves the zone's count, so the probe does not see it; the full
// relisting (--provider-cache-time, here 1.5 s) does, and puts it back within that period and a resync.
func TestInPlaceEditHealedAtTheRelisting(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	ids := seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{})
	other := outOfBand(base)
	want := []*endpoint.Endpoint{endpoint.NewWithTTL("one.example.com", endpoint.RecordTypeA, 300, "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "service/default/one")}
	const interval, relist = 300 * time.Millisecond, 1500 * time.Millisecond
	providertest.RunController(t, p, controller.Settings{Interval: interval, ProviderCacheTime: relist}, want...)
	ours := func() bool {
		return strings.Join(published(emu, "example.com", "one.example.com", "A"), ",") == "10.0.0.1"
	}
	waitFor(t, "first publication", 5*time.Second, ours)
	id := recordID(t, other, ids["example.com"], "one.example.com", "A")
	if _, err := other.DNS.Records.Update(context.Background(), id, dns.RecordUpdateParams{ZoneID: cf.F(ids["example.com"]),
		Body: updateBody(write{name: "one.example.com", typ: "A", target: "192.0.2.66", ttl: 300})}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "in-place edit healed", relist+3*interval, ours)
}

// The probe reads result_info.total_count from the smallest page the API allows, which counts every
// record of the zone (any type); our own creates and deletes move the known count, so they are not
// taken for drift.
func TestProbeCountsEveryRecordAndOurWrites(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com", Records: []cloudflareemu.SeedRecord{
		{Name: "caa.example.com", Type: "CAA", Data: map[string]any{"flags": 0, "tag": "issue", "value": "ca.example.net"}},
	}})
	p := newTestProvider(t, base, Config{})
	ctx := testCtx(t)
	if err := adjustAndApply(t, p, &plan.Changes{Create: hosts(12)}); err != nil {
		t.Fatal(err)
	}
	stale, err := p.CheckZones(ctx, time.Hour)
	if err != nil || len(stale) != 0 {
		t.Fatalf("after our own creates: stale %v, %v; want none", stale, err)
	}
	zs, _, err := p.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.recordCount(ctx, zs[0]); err != nil || n != 13 {
		t.Fatalf("count %d, %v; want 13 (12 A and a CAA the provider does not manage)", n, err)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Delete: hosts(3)}); err != nil {
		t.Fatal(err)
	}
	if stale, err := p.CheckZones(ctx, time.Hour); err != nil || len(stale) != 0 {
		t.Fatalf("after our own deletes: stale %v, %v; want none", stale, err)
	}
	emu.ClearCalls()
	if stale, err := p.CheckZones(ctx, time.Nanosecond); err != nil || len(stale) != 1 {
		t.Fatalf("with the listing older than the period: stale %v, %v; want the zone", stale, err)
	}
	if n := emu.Counters().Total; n != 0 {
		t.Errorf("a zone due for relisting is not probed: %d calls", n)
	}
}

// An account with no managed zone yet: the zone list is what the full relisting refreshes, so a zone
// created later is found once the relisting is due (it used to be never, as no zone listing had an
// age).
func TestNewZoneFoundAtTheRelistingWhenNoneWasManaged(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	p := newTestProvider(t, base, Config{})
	ctx := testCtx(t)
	if eps, err := p.Records(ctx); err != nil || len(eps) != 0 {
		t.Fatalf("no zone: %v, %v", eps, err)
	}
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com", Records: []cloudflareemu.SeedRecord{
		{Name: "www.example.com", Type: "A", Content: "192.0.2.1"}}})
	if _, err := p.CheckZones(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if eps, _ := p.Records(ctx); len(eps) != 0 {
		t.Fatalf("the zone list was relisted before its period: %v", eps)
	}
	if _, err := p.CheckZones(ctx, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	eps, err := p.Records(ctx)
	if err != nil || len(eps) != 1 || eps[0].DNSName != "www.example.com" {
		t.Fatalf("after the relisting period: %v, %v; want www.example.com", eps, err)
	}
}
