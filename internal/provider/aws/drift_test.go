package aws

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// callCounter records the pacing metrics the provider reports.
type callCounter struct {
	mu    sync.Mutex
	calls map[string]int // "call zone"
}

func (c *callCounter) APICall(_, zone, call string, _ bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[call+" "+zone]++
}
func (c *callCounter) APIRate(string, string, float64) {}

// outOfBand changes a zone directly through the SDK, as a user or another tool would: the provider's
// cache does not see it.
func outOfBand(t *testing.T, p *Provider, zoneID string, action r53types.ChangeAction, name, value string) {
	t.Helper()
	_, err := p.accounts[0].api.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{
		HostedZoneId: ptr(zoneID),
		ChangeBatch: &r53types.ChangeBatch{Changes: []r53types.Change{{Action: action, ResourceRecordSet: &r53types.ResourceRecordSet{
			Name: ptr(name), Type: r53types.RRTypeA, TTL: ptr(int64(300)), ResourceRecords: []r53types.ResourceRecord{{Value: ptr(value)}},
		}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func epNames(eps []*endpoint.Endpoint) string {
	var out []string
	for _, e := range eps {
		out = append(out, e.DNSName+"="+strings.Join(e.Targets, ","))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// Issue 16: between full relistings each zone is probed (GetHostedZone or its line of ListHostedZones); a zone whose record set count
// changed (a set added or deleted behind our back) is listed again, alone. An in-place edit keeps the
// count and is found at the full relisting, whose default period spends 1 % of the account's rate.
func TestCheckZonesRelistsOnlyTheChangedZone(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	zs := seed(t, srv,
		route53emu.SeedZone{Name: "one.test", Records: []route53emu.RecordSet{{Name: "a.one.test", Type: "A", TTL: num(300), ResourceRecords: values("192.0.2.1")}}},
		route53emu.SeedZone{Name: "two.test", Records: []route53emu.RecordSet{{Name: "b.two.test", Type: "A", TTL: num(300), ResourceRecords: values("192.0.2.2")}}})
	m := &callCounter{calls: map[string]int{}}
	p := newProvider(t, url, Config{RequestsPerSecond: 5, Metrics: m})
	now := time.Unix(1_000_000, 0)
	p.now = func() time.Time { return now }
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if m.calls["ListResourceRecordSets one.test"] != 1 || m.calls["ListResourceRecordSets two.test"] != 1 {
		t.Fatalf("calls by zone: %v", m.calls)
	}
	srv.ClearCalls()
	outOfBand(t, p, zs[1].ID, r53types.ChangeActionCreate, "added.two.test", "192.0.2.9")
	stale, err := p.CheckZones(ctxT(t), 0)
	if err != nil || fmt.Sprint(stale) != "[two.test]" {
		t.Fatalf("CheckZones = %v, %v; want [two.test]", stale, err)
	}
	eps, err := p.Records(ctxT(t))
	if err != nil || !strings.Contains(epNames(eps), "added.two.test=192.0.2.9") {
		t.Fatalf("Records after the probe: %v, %v", epNames(eps), err)
	}
	// Both zones of the account are managed: one ListHostedZones page gives both counts
	// (TestCheckZonesProbesManyZonesWithOneListing).
	if c := srv.Counters().Calls; c["GetHostedZone"] != 0 || c["ListResourceRecordSets"] != 1 || c["ListHostedZones"] != 1 {
		t.Fatalf("a probe of two zones and a listing of the changed one, want 1 ListHostedZones and 1 page: %v", c)
	}

	// An in-place edit keeps the count: not seen by the probe, seen by the relisting.
	outOfBand(t, p, zs[0].ID, r53types.ChangeActionUpsert, "a.one.test", "192.0.2.66")
	if stale, err := p.CheckZones(ctxT(t), 0); err != nil || len(stale) != 0 {
		t.Fatalf("CheckZones after an in-place edit = %v, %v; want nothing", stale, err)
	}
	// Two pages at 5 requests/s: the default relisting period is 2 / (1 % of 5) = 40 s.
	now = now.Add(39 * time.Second)
	if stale, _ := p.CheckZones(ctxT(t), 0); len(stale) != 0 {
		t.Fatalf("39 s after the listing nothing is due: %v", stale)
	}
	// 40 s after the listing every zone is listed again; only the edited one is named.
	now = now.Add(time.Second)
	srv.ClearCalls()
	if stale, _ := p.CheckZones(ctxT(t), 0); fmt.Sprint(stale) != "[one.test]" || srv.Counters().Calls["ListResourceRecordSets"] != 2 {
		t.Fatalf("40 s after the listing every zone is due, and one.test changed: %v, calls %v", stale, srv.Counters().Calls)
	}
	if eps, _ := p.Records(ctxT(t)); !strings.Contains(epNames(eps), "a.one.test=192.0.2.66") {
		t.Fatalf("the relisting must see the in-place edit: %v", epNames(eps))
	}
	// --provider-cache-time overrides the default.
	now = now.Add(10 * time.Second)
	srv.ClearCalls()
	if stale, _ := p.CheckZones(ctxT(t), 5*time.Second); len(stale) != 0 || srv.Counters().Calls["ListResourceRecordSets"] != 2 {
		t.Fatalf("with a relisting period of 5 s, 10 s later every zone is listed again, and none changed: %v, calls %v", stale, srv.Counters().Calls)
	}
}

// Issue 11: one zone that cannot be listed (access denied) is left out, the others are listed and
// written; a change into the unreadable zone is rejected naming it, and the zone is tried again only
// after CheckZones, once per call.
func TestUnreadableZoneIsLeftOut(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	zs := seed(t, srv, route53emu.SeedZone{Name: "one.test"}, route53emu.SeedZone{Name: "two.test"})
	if err := srv.AddFault(route53emu.Fault{Operation: "ListResourceRecordSets", ZoneID: zs[1].ID, Code: "AccessDenied"}); err != nil {
		t.Fatal(err)
	}
	p := newProvider(t, url, Config{})
	_, err := p.Records(ctxT(t))
	ue, ok := provider.AsUnreadableZones(err)
	if !ok || fmt.Sprint(ue.Names()) != "[two.test]" || fmt.Sprint(ue.Readable) != "[one.test]" || !strings.Contains(err.Error(), "AccessDenied") {
		t.Fatalf("Records = %v; want the unreadable two.test named", err)
	}
	err = p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("a.one.test", "A", 300, "192.0.2.1"), ep("b.two.test", "A", 300, "192.0.2.2")}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.DNSName != "b.two.test" || !strings.Contains(ae.Rejected[0].Err.Error(), "could not be listed") {
		t.Fatalf("ApplyChanges = %v; want b.two.test rejected alone", err)
	}
	if got := placedIn(srv); got != "a.one.test/A="+zs[0].ID {
		t.Fatalf("zones hold %s", got)
	}
	srv.ClearCalls()
	if _, err := p.Records(ctxT(t)); err == nil || srv.Counters().Calls["ListResourceRecordSets"] != 0 {
		t.Fatalf("the failure is cached until CheckZones: %v, calls %v", err, srv.Counters().Calls)
	}
	srv.ClearFaults()
	if stale, err := p.CheckZones(ctxT(t), time.Hour); err != nil || !slices.Contains(stale, "two.test") {
		t.Fatalf("CheckZones = %v, %v; want two.test tried again", stale, err)
	}
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatalf("two.test readable again: %v", err)
	}
	if c := srv.Counters().Calls; c["ListResourceRecordSets"] != 1 || c["GetHostedZone"] != 1 {
		t.Fatalf("one probe of the readable zone and one listing of the other: %v", c)
	}
}

// zonekeeper plan's cost line: the ChangeResourceRecordSets a plan costs, packed as ApplyChanges packs.
func TestEstimateCallsMatchesApply(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test"}, route53emu.SeedZone{Name: "two.test"})
	p := newProvider(t, url, Config{BatchChangeSize: 100})
	var create []*endpoint.Endpoint
	for i := range 250 {
		create = append(create, ep(fmt.Sprintf("h%d.one.test", i), "A", 300, "192.0.2.1"))
	}
	create = append(create, ep("x.two.test", "A", 300, "192.0.2.1"))
	est, err := p.EstimateCalls(ctxT(t), &plan.Changes{Create: create})
	if err != nil || est.Calls != 4 || est.Zones != 2 || est.Call != "ChangeResourceRecordSets" {
		t.Fatalf("estimate %+v, %v; want 4 calls in 2 zones", est, err)
	}
	srv.ClearCalls()
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: create}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Counters().Calls["ChangeResourceRecordSets"]; n != est.Calls {
		t.Fatalf("applied with %d calls, estimated %d", n, est.Calls)
	}
}

// Issue 16: --aws-batch-change-interval waits between batches only when set; by default the account's
// limiter alone paces them (external-dns waits a fixed 1 s).
func TestBatchIntervalOnlyWhenSet(t *testing.T) {
	parse := func(args ...string) time.Duration {
		var f AWSFlags
		k := f.Kind()
		k.Defaults()
		fs := flag.NewFlagSet("z", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		k.Flags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f.AWSBatchChangeInterval
	}
	if d := parse(); d != 0 {
		t.Fatalf("default pause %s, want none", d)
	}
	if d := parse("--aws-batch-change-interval=2s"); d != 2*time.Second {
		t.Fatalf("explicit pause %s, want 2s", d)
	}

	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test"})
	p := newProvider(t, url, Config{BatchChangeSize: 1, BatchChangeInterval: 30 * time.Millisecond})
	var slept []time.Duration
	p.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("a.one.test", "A", 300, "192.0.2.1"), ep("b.one.test", "A", 300, "192.0.2.1")}})
	if err != nil || fmt.Sprint(slept) != "[30ms]" {
		t.Fatalf("an explicit interval is waited between two batches: slept %v, %v", slept, err)
	}
}

// A role with external-dns's policy may not call GetHostedZone: the zone is then listed at every
// resync, as before the probe, and a warning naming the IAM action is logged once.
func TestProbeDeniedFallsBackToListing(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test"})
	if err := srv.AddFault(route53emu.Fault{Operation: "GetHostedZone", Code: "AccessDenied"}); err != nil {
		t.Fatal(err)
	}
	logs := &testbed.LogBuffer{}
	p := newProvider(t, url, Config{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	for range 3 {
		if _, err := p.Records(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		if stale, err := p.CheckZones(ctxT(t), time.Hour); err != nil || fmt.Sprint(stale) != "[one.test]" {
			t.Fatalf("CheckZones = %v, %v; want the zone listed again", stale, err)
		}
	}
	if n := strings.Count(logs.String(), "cannot be probed"); n != 1 || !strings.Contains(logs.String(), "Grant route53:GetHostedZone") {
		t.Fatalf("%d warnings naming route53:GetHostedZone, want 1:\n%s", n, logs)
	}
	if c := srv.Counters().Calls; c["ListResourceRecordSets"] != 3 {
		t.Fatalf("listed %d times, want 3 (once per resync)", c["ListResourceRecordSets"])
	}
}

// A throttling answer with Retry-After stops the account's requests for that long (the pacing
// bucket), on top of halving the rate; the call still succeeds through the SDK's retry.
func TestRetryAfterPausesTheAccount(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "one.test"})
	if err := srv.AddFault(route53emu.Fault{Operation: "ListHostedZones", Code: "Throttling", Count: 1, RetryAfter: "1"}); err != nil {
		t.Fatal(err)
	}
	p := newProvider(t, url, Config{RequestsPerSecond: 1000})
	start := time.Now()
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second || p.Limiter().Throttles() != 1 {
		t.Fatalf("took %s with %d throttles; want the 1 s Retry-After waited after one throttle", d, p.Limiter().Throttles())
	}
}
