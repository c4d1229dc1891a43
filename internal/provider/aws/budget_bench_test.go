package aws

import (
	"context"
	"fmt"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// The API budget benchmarks of issue 16 (docs/benchmarks.md, "Route 53 API budget"): 20,000 Ingress
// hostnames (40,000 record sets with their ownership TXTs, 40,002 with SOA and NS) in one zone, the
// emulator enforcing Route 53's 5 requests/s per account, zonekeeper with its defaults (5 requests/s,
// no fixed pause between batches, --provider-cache-time unset). Run:
//
//	go test -run x -bench 'Budget' -benchtime 1x -timeout 30m ./internal/provider/aws/
const budgetZone = "big.test"

func ingressHosts(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = ep(fmt.Sprintf("app%d.%s", i, budgetZone), "A", 300, fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256)).
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("ingress/default/app%d", i))
	}
	return eps
}

type budgetStack struct {
	srv  *route53emu.Server
	p    *Provider
	reg  *txt.Registry
	src  *staticSource
	ctrl *controller.Controller
}

// newBudgetStack is one zonekeeper as the defaults build it, against an emulator at emuRate requests/s.
func newBudgetStack(b *testing.B, n int, emuRate float64) *budgetStack {
	staticCredentials(b)
	srv, url := emulator(b, route53emu.Options{RateLimit: emuRate})
	seed(b, srv, route53emu.SeedZone{Name: budgetZone})
	p := newProvider(b, url, Config{EvaluateTargetHealth: true, RequestsPerSecond: DefaultRequestsPerSecond, RetryMaxBackoff: time.Second})
	reg, err := txt.New(p, txt.Config{OwnerID: "bench", CacheInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	filter, _ := plan.NewDomainFilter([]string{budgetZone}, nil, "", "")
	src := &staticSource{eps: ingressHosts(n)}
	ctrl := controller.New(src, reg, controller.Settings{OwnerID: "bench", Policy: plan.PolicySync, DomainFilter: filter, Interval: time.Minute},
		slog.New(slog.DiscardHandler))
	return &budgetStack{srv: srv, p: p, reg: reg, src: src, ctrl: ctrl}
}

// converge runs reconciles until the zone holds every record set and a run plans nothing (a batch that
// failed after the SDK's retries is held back by the retry book and sent again when due, as the
// controller's loop does), and returns the runs it took and the duration of the first one.
func (s *budgetStack) converge(b *testing.B, n int) (runs int, first time.Duration) {
	for runs = 1; runs <= 500; runs++ {
		start := time.Now()
		out, err := s.ctrl.RunOnce(context.Background())
		if runs == 1 {
			first = time.Since(start)
		}
		if err != nil {
			b.Logf("run %d failed (retried): %v", runs, err)
			continue
		}
		if !out.Changes.HasChanges() {
			if len(dump(s.srv, budgetZone)) == 2*n {
				return runs, first
			}
			time.Sleep(200 * time.Millisecond) // held back: wait for the retry book
		}
	}
	b.Fatal("no convergence in 500 runs")
	return 0, 0
}

// cpu is the process's user and system CPU time.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// exactlyOnce checks that the zone holds every host's A and TXT once, with the right address.
func (s *budgetStack) exactlyOnce(b *testing.B, n int) {
	sets := dump(s.srv, budgetZone)
	if len(sets) != 2*n {
		b.Fatalf("%d record sets, want %d", len(sets), 2*n)
	}
	for i := range n {
		name := fmt.Sprintf("app%d.%s.", i, budgetZone)
		a, ok := sets[name+" A "]
		if !ok || a.ResourceRecords == nil || len(a.ResourceRecords.Items) != 1 || a.ResourceRecords.Items[0].Value != fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256) {
			b.Fatalf("%s A: %+v", name, a)
		}
		if _, ok := sets["a-"+name+" TXT "]; !ok {
			b.Fatalf("a-%s TXT missing", name)
		}
	}
}

func (s *budgetStack) report(b *testing.B, prefix string) {
	c := s.srv.Counters()
	throttles := 0
	for k, v := range c.Errors {
		if k == "ChangeResourceRecordSets:Throttling" || k == "ListResourceRecordSets:Throttling" || k == "GetHostedZone:Throttling" || k == "ListHostedZones:Throttling" {
			throttles += v
		}
	}
	b.ReportMetric(float64(c.Calls["ChangeResourceRecordSets"]), prefix+"change-calls")
	b.ReportMetric(float64(c.Calls["ListResourceRecordSets"]), prefix+"list-pages")
	b.ReportMetric(float64(c.Calls["GetHostedZone"]), prefix+"probes")
	b.ReportMetric(float64(throttles), prefix+"throttles")
	b.Logf("%scalls %v errors %v", prefix, c.Calls, c.Errors)
}

// (1) 20,000 Ingress hostnames converge at 5 requests/s with no throttle; (2) one Ingress change then
// costs one ChangeResourceRecordSets and no list page; (3) an idle hour costs its probes and, with the
// default relisting period (134 pages at 1 % of 5 requests/s: 2,680 s), one full listing. The hour is
// simulated: the provider's clock advances one minute per resync, each resync is what the controller
// does at --interval (CheckZones, then a reconcile), and the calls are real, paced at 5 requests/s.
func BenchmarkBudget20000Ingresses(b *testing.B) {
	const n = 20000
	for b.Loop() {
		s := newBudgetStack(b, n, DefaultRequestsPerSecond)
		start, cpu0 := time.Now(), cpu()
		runs, first := s.converge(b, n)
		took := time.Since(start)
		b.ReportMetric(took.Seconds(), "converge-s")
		b.ReportMetric(first.Seconds(), "first-run-s")
		s.report(b, "sync-")
		b.Logf("converged in %s (%d runs; the first, which wrote everything, %s); client throttles %d; CPU %s (zonekeeper and the emulator in one process)",
			took.Round(10*time.Millisecond), runs, first.Round(10*time.Millisecond), s.p.Limiter().Throttles(), (cpu() - cpu0).Round(10*time.Millisecond))
		s.exactlyOnce(b, n)

		s.srv.ClearCalls()
		s.src.mu.Lock()
		s.src.eps[7].Targets = endpoint.Targets{"10.250.0.7"}
		s.src.mu.Unlock()
		if out, err := s.ctrl.RunOnce(context.Background()); err != nil || out.Changes.Len() != 1 {
			b.Fatalf("one change: %v, %v", out.Changes, err)
		}
		s.report(b, "event-")

		s.srv.ClearCalls()
		now := time.Now()
		s.p.now = func() time.Time { return now }
		for minute := 1; minute <= 60; minute++ {
			now = now.Add(time.Minute)
			if _, err := s.reg.CheckZones(context.Background(), 0); err != nil {
				b.Fatal(err)
			}
			if out, err := s.ctrl.RunOnce(context.Background()); err != nil || out.Changes.HasChanges() {
				b.Fatalf("idle minute %d: %v, %v", minute, out.Changes, err)
			}
		}
		s.report(b, "idle-hour-")
	}
}

// (4) The same sync with the emulator throttling hard (1 request/s, burst 1) while zonekeeper starts
// at 5: the limiter backs off, every record ends present exactly once, nothing exits; then the
// emulator returns to 5 requests/s and the rate recovers.
func BenchmarkBudget20000IngressesThrottled(b *testing.B) {
	const n = 20000
	for b.Loop() {
		s := newBudgetStack(b, n, 1)
		start := time.Now()
		runs, _ := s.converge(b, n)
		took := time.Since(start)
		b.ReportMetric(took.Seconds(), "converge-s")
		s.report(b, "sync-")
		s.exactlyOnce(b, n)
		low := s.p.Limiter().Rate()
		b.Logf("converged in %s (%d runs); client throttles %d, rate %.2f/s", took.Round(10*time.Millisecond), runs, s.p.Limiter().Throttles(), low)
		s.srv.SetRateLimit(DefaultRequestsPerSecond, 0)
		recover := time.Now()
		for s.p.Limiter().Rate() < DefaultRequestsPerSecond && time.Since(recover) < 2*time.Minute {
			if err := s.p.Probe(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(s.p.Limiter().Rate(), "rate-after")
		b.Logf("rate %.2f/s back to %.2f/s in %s", low, s.p.Limiter().Rate(), time.Since(recover).Round(10*time.Millisecond))
	}
}
