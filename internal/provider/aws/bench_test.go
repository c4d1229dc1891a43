package aws

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// staticSource is a source whose endpoints the benchmark sets.
type staticSource struct {
	mu  sync.Mutex
	eps []*endpoint.Endpoint
}

func (s *staticSource) Endpoints(context.Context) (source.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*endpoint.Endpoint, len(s.eps))
	for i, e := range s.eps {
		out[i] = e.DeepCopy()
	}
	return source.Result{Endpoints: out}, nil
}
func (s *staticSource) AddEventHandler(func()) {}

var benchZones = []string{"one.test", "two.test"}

// hostnames are 5,000 Services' worth of A records, half in each zone.
func hostnames(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = ep(fmt.Sprintf("host%d.%s", i, benchZones[i%2]), "A", 300, fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)).
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/s%d", i))
	}
	return eps
}

// benchStack is the pipeline of one zonekeeper: static source, TXT registry, aws provider, controller.
type benchStack struct {
	srv  *route53emu.Server
	src  *staticSource
	ctrl *controller.Controller
}

func newBenchStack(b *testing.B, n int) *benchStack {
	staticCredentials(b)
	srv, url := emulator(b, route53emu.Options{})
	seed(b, srv, route53emu.SeedZone{Name: benchZones[0]}, route53emu.SeedZone{Name: benchZones[1]})
	p := newProvider(b, url, Config{EvaluateTargetHealth: true})
	reg, err := txt.New(p, txt.Config{OwnerID: "bench", CacheInterval: 3600e9})
	if err != nil {
		b.Fatal(err)
	}
	filter, _ := plan.NewDomainFilter(benchZones, nil, "", "")
	src := &staticSource{eps: hostnames(n)}
	ctrl := controller.New(src, reg, controller.Settings{OwnerID: "bench", Policy: plan.PolicySync, DomainFilter: filter, Interval: 60e9},
		slog.New(slog.DiscardHandler))
	return &benchStack{srv: srv, src: src, ctrl: ctrl}
}

func (s *benchStack) runOnce(b *testing.B) controller.Outcome {
	out, err := s.ctrl.RunOnce(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if out.Rejected > 0 {
		b.Fatalf("%d changes rejected", out.Rejected)
	}
	return out
}

// report puts the emulator's call counts and the lower limits beside them.
func report(b *testing.B, srv *route53emu.Server, runs int, minChange, minList float64) {
	c := srv.Counters().Calls
	b.ReportMetric(float64(c["ChangeResourceRecordSets"])/float64(runs), "change-calls/op")
	b.ReportMetric(float64(c["ListResourceRecordSets"])/float64(runs), "list-pages/op")
	b.ReportMetric(float64(c["ListHostedZones"])/float64(runs), "zone-lists/op")
	b.ReportMetric(minChange, "min-change-calls")
	b.ReportMetric(minList, "min-list-pages")
}

// (a) The first sync of 5,000 hostnames in two empty zones: 10,000 record sets (A + ownership TXT).
func BenchmarkInitialSync5000(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := newBenchStack(b, 5000)
		b.StartTimer()
		s.runOnce(b)
		b.StopTimer()
		report(b, s.srv, 1, minChangeCalls(s.srv), 2)
		b.StartTimer()
	}
}

// (b) One object changes in steady state (an event, the caches warm).
func BenchmarkOneChangeSteadyState(b *testing.B) {
	s := newBenchStack(b, 5000)
	s.runOnce(b)
	s.srv.ClearCalls()
	runs := 0
	for b.Loop() {
		s.src.mu.Lock()
		s.src.eps[0].Targets = endpoint.Targets{fmt.Sprintf("10.200.%d.%d", runs/256%256, runs%256)}
		s.src.mu.Unlock()
		out := s.runOnce(b)
		if out.Changes.Len() == 0 {
			b.Fatal("no change planned")
		}
		runs++
	}
	report(b, s.srv, runs, 1, 0)
}

// (c) An hour of steady state at --interval=1m: 60 resyncs with nothing to change.
func BenchmarkHourSteadyState(b *testing.B) {
	s := newBenchStack(b, 5000)
	s.runOnce(b)
	runs := 0
	for b.Loop() {
		b.StopTimer()
		s.srv.ClearCalls()
		b.StartTimer()
		for range 60 {
			s.ctrl.Resync()
			if out := s.runOnce(b); out.Changes.Len() != 0 {
				b.Fatalf("steady state planned %d changes", out.Changes.Len())
			}
		}
		runs++
	}
	// Per zone 5,002 sets (SOA and NS included): ceil(5002/300) = 17 pages, 2 zones, 60 times.
	report(b, s.srv, runs, 0, 60*2*math.Ceil(5002/300.0))
}

// minChangeCalls is the least number of ChangeResourceRecordSets that can create every record set now
// in the zones: per zone, the larger of ceil(sets/1000) and ceil(value characters/32,000). With
// ownership TXTs of ~90 characters the character limit binds first.
func minChangeCalls(srv *route53emu.Server) float64 {
	total := 0.0
	for _, z := range srv.Dump() {
		sets, chars := 0, 0
		for _, rs := range z.Records {
			if rs.Type == "SOA" || rs.Type == "NS" {
				continue
			}
			sets++
			if rs.ResourceRecords != nil {
				for _, v := range rs.ResourceRecords.Items {
					chars += len(v.Value)
				}
			}
		}
		total += max(math.Ceil(float64(sets)/1000), math.Ceil(float64(chars)/32000))
	}
	return total
}
