package aws

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The many-zones benchmark of issue 15 item 4 (docs/benchmarks.md, "Many zones (issue 15)"): 50 hosted
// zones holding 100,000 record sets in total (1,000 hostnames per zone, each an A and its ownership
// TXT; 2,002 sets per zone with SOA and NS), through the provider, the TXT registry and the
// controller, counted by the emulator against the lower limit the API allows. Run:
//
//	go test -run x -bench ManyZones -benchtime 1x -timeout 30m ./internal/provider/aws/
const (
	manyZones        = 50
	manyZoneHosts    = 1000 // per zone
	manyZoneSetsEach = 2*manyZoneHosts + 2
)

func manyZoneName(i int) string { return fmt.Sprintf("zone%02d.test", i) }

// manyZoneHosts are n hostnames spread round-robin over the zones.
func manyZoneEndpoints(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = ep(fmt.Sprintf("app%d.%s", i, manyZoneName(i%manyZones)), "A", 300, fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256)).
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("ingress/default/app%d", i))
	}
	return eps
}

// newManyZonesStack is one zonekeeper as the defaults build it (5 requests/s, no fixed pause,
// --provider-cache-time and --aws-zones-cache-duration unset, the registry's cache interval that of a
// 1-minute --interval) against an emulator enforcing emuRate requests/s, with clientRate requests/s
// on the client side.
func newManyZonesStack(b *testing.B, srv *route53emu.Server, url string, clientRate float64) *budgetStack {
	p := newProvider(b, url, Config{EvaluateTargetHealth: true, RequestsPerSecond: clientRate, RetryMaxBackoff: time.Second})
	reg, err := txt.New(p, txt.Config{OwnerID: "bench", CacheInterval: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, manyZones)
	for i := range names {
		names[i] = manyZoneName(i)
	}
	filter, _ := plan.NewDomainFilter(names, nil, "", "")
	src := &staticSource{eps: manyZoneEndpoints(manyZones * manyZoneHosts)}
	ctrl := controller.New(src, reg, controller.Settings{OwnerID: "bench", Policy: plan.PolicySync, DomainFilter: filter, Interval: time.Minute},
		slog.New(slog.DiscardHandler))
	return &budgetStack{srv: srv, p: p, reg: reg, src: src, ctrl: ctrl}
}

// manyZonesSets counts the record sets of every zone, SOA and NS included.
func manyZonesSets(srv *route53emu.Server) int {
	n := 0
	for _, z := range srv.Dump() {
		n += len(z.Records)
	}
	return n
}

// convergeAll runs reconciles until a run plans nothing and every zone holds its sets.
func (s *budgetStack) convergeAll(b *testing.B) (runs int) {
	for runs = 1; runs <= 200; runs++ {
		out, err := s.ctrl.RunOnce(context.Background())
		if err != nil {
			b.Logf("run %d failed (retried): %v", runs, err)
			continue
		}
		if !out.Changes.HasChanges() {
			if manyZonesSets(s.srv) == manyZones*manyZoneSetsEach {
				return runs
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	b.Fatal("no convergence in 200 runs")
	return 0
}

// idleResync is what the controller does on its --interval tick when nothing changed: the zone probe
// with relist (0: the default period, derived from the account's rate), then a reconcile.
func (s *budgetStack) idleResync(b *testing.B, relist time.Duration) {
	if _, err := s.reg.CheckZones(context.Background(), relist); err != nil {
		b.Fatal(err)
	}
	if out, err := s.ctrl.RunOnce(context.Background()); err != nil || out.Changes.HasChanges() {
		b.Fatalf("idle resync: %v, %v", out.Changes, err)
	}
}

// counted reports the emulator's calls by kind with the lower limits beside them.
func counted(b *testing.B, srv *route53emu.Server, prefix string, minChange, minPages float64) map[string]int {
	c := srv.Counters()
	b.ReportMetric(float64(c.Calls["ChangeResourceRecordSets"]), prefix+"change-calls")
	b.ReportMetric(float64(c.Calls["ListResourceRecordSets"]), prefix+"list-pages")
	b.ReportMetric(float64(c.Calls["ListHostedZones"]), prefix+"zone-lists")
	b.ReportMetric(float64(c.Calls["GetHostedZone"]), prefix+"probes")
	b.Logf("%scalls %v errors %v; lower limit %.0f change calls, %.0f list pages", prefix, c.Calls, c.Errors, minChange, minPages)
	return c.Calls
}

// (a) converge 50 empty zones to 100,000 record sets at 5 requests/s; (b) one hostname changes;
// (c) one idle resync, paced at 5 requests/s; (d) idle hours: 180 resyncs of a 1-minute --interval
// with the provider's clock moved on a minute each; (e) a record added out of band in one zone, then
// one resync. (d) is counted on a second zonekeeper over the
// same zones whose client is not paced, so that the probes do not take minutes of real time: its relisting
// period is passed explicitly as the default a 5 requests/s account derives (pacing.RelistPeriod of
// the cached pages at 5/s), which is what CheckZones computes with relist 0 at the default rate.
func BenchmarkManyZones(b *testing.B) {
	for b.Loop() {
		staticCredentials(b)
		srv, url := emulator(b, route53emu.Options{RateLimit: DefaultRequestsPerSecond})
		zones := make([]route53emu.SeedZone, manyZones)
		for i := range zones {
			zones[i] = route53emu.SeedZone{Name: manyZoneName(i)}
		}
		seed(b, srv, zones...)
		s := newManyZonesStack(b, srv, url, DefaultRequestsPerSecond)

		start, cpu0 := time.Now(), cpu()
		runs := s.convergeAll(b)
		took := time.Since(start)
		b.ReportMetric(took.Seconds(), "converge-s")
		// A listing of an empty zone is one page; the writes at least minChangeCalls.
		minChange := minChangeCalls(srv)
		calls := counted(b, srv, "sync-", minChange, manyZones)
		total := 0
		for _, n := range calls {
			total += n
		}
		b.Logf("converged in %s (%d runs), %d calls (floor at 5/s: %.1f s); client throttles %d; CPU %s (zonekeeper and the emulator)",
			took.Round(10*time.Millisecond), runs, total, float64(total)/DefaultRequestsPerSecond, s.p.Limiter().Throttles(), (cpu() - cpu0).Round(10*time.Millisecond))

		srv.ClearCalls()
		s.src.mu.Lock()
		s.src.eps[7].Targets = endpoint.Targets{"10.250.0.7"}
		s.src.mu.Unlock()
		if out, err := s.ctrl.RunOnce(context.Background()); err != nil || out.Changes.Len() != 1 {
			b.Fatalf("one change: %v, %v", out.Changes, err)
		}
		counted(b, srv, "event-", 1, 0)

		srv.ClearCalls()
		start = time.Now()
		s.idleResync(b, 0)
		b.ReportMetric(time.Since(start).Seconds(), "idle-resync-s")
		counted(b, srv, "idle-resync-", 0, 0)

		// (d) Idle hours with the default relisting period of the 5 requests/s account.
		fast := newManyZonesStack(b, srv, url, 1e6)
		srv.SetRateLimit(0, 0)
		fast.src.mu.Lock()
		fast.src.eps[7].Targets = endpoint.Targets{"10.250.0.7"}
		fast.src.mu.Unlock()
		fast.convergeAll(b)
		pages := manyZones * int(math.Ceil(manyZoneSetsEach/float64(listPageSize)))
		relist := pacing.RelistPeriod(pages, DefaultRequestsPerSecond)
		b.Logf("a full listing is %d pages; default relisting period at 5 requests/s: %s", pages, relist)
		srv.ClearCalls()
		now := time.Now()
		fast.p.now = func() time.Time { return now }
		for minute := 1; minute <= 180; minute++ {
			now = now.Add(time.Minute)
			fast.idleResync(b, relist)
			if minute == 60 {
				counted(b, srv, "idle-hour-", 0, float64(pages)*time.Hour.Seconds()/relist.Seconds())
			}
		}
		counted(b, srv, "idle-3h-", 0, float64(pages)*3*time.Hour.Seconds()/relist.Seconds())

		// (e) A record set added behind our back in one zone: the next resync lists that zone alone
		// (7 pages), and leaves the foreign record alone.
		srv.ClearCalls()
		var changed string
		for _, z := range srv.Dump() {
			if strings.TrimSuffix(z.Name, ".") == manyZoneName(13) {
				changed = z.ID
			}
		}
		_, err := fast.p.accounts[0].api.ChangeResourceRecordSets(context.Background(), &route53.ChangeResourceRecordSetsInput{
			HostedZoneId: ptr(changed),
			ChangeBatch: &r53types.ChangeBatch{Changes: []r53types.Change{{Action: r53types.ChangeActionCreate, ResourceRecordSet: &r53types.ResourceRecordSet{
				Name: ptr("manual." + manyZoneName(13)), Type: r53types.RRTypeA, TTL: ptr(int64(300)), ResourceRecords: []r53types.ResourceRecord{{Value: ptr("192.0.2.13")}},
			}}}},
		})
		if err != nil {
			b.Fatal(err)
		}
		srv.ClearCalls()
		now = now.Add(time.Minute)
		fast.idleResync(b, relist)
		counted(b, srv, "drift-", 0, math.Ceil((manyZoneSetsEach+1)/float64(listPageSize)))
	}
}

// The live heap the provider's write-through cache holds per record set, for docs/scaling.md (what one
// replica holds): one zone of 10,000 hostnames (an A and its ownership TXT each) listed into the cache.
// A first provider lists the zone once beforehand, so that whatever the emulator builds for a listing
// is in the baseline.
//
//	go test -run x -bench ProviderCacheBytes -benchtime 3x ./internal/provider/aws/
func BenchmarkProviderCacheBytes(b *testing.B) {
	const hosts = 10000
	for b.Loop() {
		staticCredentials(b)
		srv, url := emulator(b, route53emu.Options{})
		recs := make([]route53emu.RecordSet, 0, 2*hosts)
		for i := range hosts {
			name := fmt.Sprintf("app%d.%s", i, budgetZone)
			recs = append(recs,
				route53emu.RecordSet{Name: name, Type: "A", TTL: num(300), ResourceRecords: values(fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256))},
				route53emu.RecordSet{Name: "a-" + name, Type: "TXT", TTL: num(300), ResourceRecords: values(
					fmt.Sprintf(`"heritage=external-dns,external-dns/owner=bench,external-dns/resource=ingress/default/app%d"`, i))})
		}
		seed(b, srv, route53emu.SeedZone{Name: budgetZone, Records: recs})
		if _, err := newProvider(b, url, Config{}).Records(context.Background()); err != nil {
			b.Fatal(err)
		}
		p := newProvider(b, url, Config{})
		before := testbed.LiveHeap()
		if _, err := p.Records(context.Background()); err != nil {
			b.Fatal(err)
		}
		after := testbed.LiveHeap()
		runtime.KeepAlive(p)
		b.ReportMetric(float64(int64(after)-int64(before))/float64(2*hosts+2), "B/recordset")
	}
}
