package txt

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/aws"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// convergedStack is what a zonekeeper process holds once it has converged on n Ingresses with
// --source=ingress --provider=aws (the side-by-side benchmark's setup, test/bench): an informer
// store of the Ingresses as the source's transform leaves them, the Ingress source, the controller
// (its desired index and idle memo), the TXT registry and the Route 53 provider over the emulator,
// which serves the zone in this process (its memory is measured apart, below).
type convergedStack struct {
	store cache.Indexer
	ctrl  *controller.Controller
	reg   *Registry
	prov  *aws.Provider
	emu   *route53emu.Server
	http  *httptest.Server
	clock time.Time
}

func memoryBenchIngress(i int) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%06d", i), Namespace: "default",
			UID: "0c5fd2c6-4a8e-4d76-9f3e-6b9e3f1a2b3c", ResourceVersion: strconv.Itoa(1000 + i), Generation: 1,
			CreationTimestamp: metav1.Now()},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: fmt.Sprintf("h%06d.bench.example.com", i)}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}}}},
	}
}

// newConvergedStack builds the stack and converges it from an empty zone (the first reconcile writes
// every A record and its ownership TXT; a second one confirms nothing is left).
func newConvergedStack(tb testing.TB, n int) *convergedStack {
	tb.Helper()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDZONEKEEPER", "AWS_SECRET_ACCESS_KEY": "zonekeeper-test-secret",
		"AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": "/nonexistent/zonekeeper-aws-config",
		"AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/zonekeeper-aws-credentials", "AWS_PROFILE": "", "AWS_SESSION_TOKEN": "",
		"AWS_ROLE_ARN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_ROUTE_53": "",
		"AWS_ENDPOINT_URL_STS": ""} {
		tb.Setenv(k, v)
	}
	s := &convergedStack{emu: route53emu.New(route53emu.Options{}), clock: time.Now()}
	s.http = httptest.NewServer(s.emu)
	tb.Cleanup(s.http.Close)
	if _, err := s.emu.Seed(route53emu.Seed{Zones: []route53emu.SeedZone{{Name: "bench.example.com"}}}); err != nil {
		tb.Fatal(err)
	}
	// The store and transform of the Ingress source's own informer, so that the store's row is what the
	// process holds.
	store, transform, err := source.IngressInformerStore(source.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	s.store = store
	for i := range n {
		obj, err := transform(memoryBenchIngress(i))
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.store.Add(obj); err != nil {
			tb.Fatal(err)
		}
	}
	ing, err := source.NewIngressFromStore(s.store, source.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	s.prov, err = aws.New(context.Background(), aws.Config{Endpoint: s.http.URL, RequestsPerSecond: 1e6,
		EvaluateTargetHealth: true, RetryMaxBackoff: 10 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	s.reg, err = New(s.prov, Config{OwnerID: "default", CacheInterval: time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	s.reg.now = func() time.Time { return s.clock }
	s.ctrl = controller.New(source.PostProcess(ing, source.PostProcessConfig{}), s.reg, controller.Settings{
		OwnerID: "default", Policy: plan.PolicySync, Interval: time.Minute,
		Guard: plan.Guard{MaxDeleteFraction: 0.3, MinChanges: 10, Window: 10 * time.Minute, Settle: 3 * time.Second}},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	out, err := s.ctrl.RunOnce(ctx)
	if err != nil || len(out.Changes.Create) != n {
		tb.Fatalf("converging: %d creates, want %d: %v", len(out.Changes.Create), n, err)
	}
	if out, err := s.ctrl.RunOnce(ctx); err != nil || out.Changes.HasChanges() {
		tb.Fatalf("after converging: %+v, %v", out.Changes, err)
	}
	return s
}

// idleResync is one --interval resync of an idle process: the registry's cache has aged, so it is
// listed again (from the provider's cache, which an idle zone probe keeps), found unchanged and kept;
// the sources' endpoints are made again and the plan skipped.
func (s *convergedStack) idleResync(tb testing.TB) {
	s.clock = s.clock.Add(time.Minute)
	out, err := s.ctrl.RunOnce(context.Background())
	if err != nil || out.Changes.HasChanges() {
		tb.Fatalf("idle resync: %+v, %v", out.Changes, err)
	}
}

// writeHeapProfile writes a heap profile to $ZONEKEEPER_HEAP_PROFILE-stage, if that is set.
func writeHeapProfile(tb testing.TB, stage string) {
	path := os.Getenv("ZONEKEEPER_HEAP_PROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path + "-" + stage)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkConvergedHeap is the live heap of a process converged on n Ingresses (2n record sets: an A
// and its ownership TXT each), and who holds it after ten idle resyncs: each part is measured by
// dropping it and collecting, in this order — the controller and source (desired index, idle memo),
// the TXT registry, the Route 53 provider, the informer store; what is left is the emulator and the
// test's own. Bytes are per
// record set (2n) for the registry and the provider, per Ingress for the rest. With
// ZONEKEEPER_HEAP_PROFILE=file heap profiles are written to file-converged and, after the idle
// resyncs, file-idle (go tool pprof -top -inuse_space; -sample_index=alloc_space -diff_base
// file-converged file-idle for what the resyncs allocated; add -memprofilerate=4096 for finer sites).
// It also measures idle resyncs: bytes allocated per resync, collections and their CPU per resync,
// the process's CPU per resync (user and GC, from runtime/metrics), and the heap's goal (mean) and
// peak (after each resync) as GOGC lets it grow; ZONEKEEPER_IDLE_GOGC=pct sets GOGC for that part.
// The emulator's heap (about 40 MB at 20,000) counts in the goal here, not in a real process's.
//
// Run: go test -run '^$' -bench ConvergedHeap -benchtime 1x ./internal/registry/txt/
// (ZONEKEEPER_MEMORY_INGRESSES=n for another size; 20,000 by default, the side-by-side's N).
func BenchmarkConvergedHeap(b *testing.B) {
	n := 20000
	if v := os.Getenv("ZONEKEEPER_MEMORY_INGRESSES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("ZONEKEEPER_MEMORY_INGRESSES=%q: %v", v, err)
		}
	}
	for b.Loop() {
		base := testbed.LiveHeap()
		s := newConvergedStack(b, n)
		total := testbed.LiveHeap()
		writeHeapProfile(b, "converged")

		// Idle resyncs: what each allocates, how often the collector runs and what it costs, and how
		// high GOGC lets the heap climb (its goal). The first resyncs list the provider again and
		// rebuild the cache (the converged one was patched by writes); they are left out.
		for range 2 {
			s.idleResync(b)
		}
		if v := os.Getenv("ZONEKEEPER_IDLE_GOGC"); v != "" {
			pct, err := strconv.Atoi(v)
			if err != nil {
				b.Fatalf("ZONEKEEPER_IDLE_GOGC=%q: %v", v, err)
			}
			defer debug.SetGCPercent(debug.SetGCPercent(pct))
		}
		testbed.LiveHeap()
		const resyncs = 20
		samples := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/cpu/classes/gc/total:cpu-seconds"},
			{Name: "/cpu/classes/user:cpu-seconds"}}
		metrics.Read(samples)
		gcCPU0, userCPU0 := samples[1].Value.Float64(), samples[2].Value.Float64()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var peak, goalSum uint64
		for range resyncs {
			s.idleResync(b)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			metrics.Read(samples)
			goalSum += samples[0].Value.Uint64()
		}
		runtime.ReadMemStats(&after)
		metrics.Read(samples)
		gcCPU, userCPU := samples[1].Value.Float64()-gcCPU0, samples[2].Value.Float64()-userCPU0
		idleLive := testbed.LiveHeap()
		writeHeapProfile(b, "idle")

		// Who holds the heap: each part is dropped in turn (the controller first: it holds the registry).
		s.ctrl = nil
		noController := testbed.LiveHeap()
		s.reg = nil
		noRegistry := testbed.LiveHeap()
		s.prov = nil
		noProvider := testbed.LiveHeap()
		s.store = nil
		noStore := testbed.LiveHeap()
		runtime.KeepAlive(s)

		sets := float64(2 * n)
		mb := func(v uint64) float64 { return float64(v) / 1e6 }
		b.ReportMetric(mb(total-base), "live-MB")
		b.ReportMetric(float64(idleLive-noController)/float64(n), "controller+source-B/ingress")
		b.ReportMetric(float64(noController-noRegistry)/sets, "registry-B/recordset")
		b.ReportMetric(float64(noRegistry-noProvider)/sets, "provider-B/recordset")
		b.ReportMetric(float64(noProvider-noStore)/float64(n), "store-B/ingress")
		b.ReportMetric(mb(noStore-base), "emulator+rest-MB")
		b.ReportMetric(mb(after.TotalAlloc-before.TotalAlloc)/resyncs, "MB-alloc/resync")
		b.ReportMetric(mb(peak), "idle-peak-heap-MB")
		b.ReportMetric(mb(goalSum/resyncs), "idle-heap-goal-MB")
		b.ReportMetric(float64(after.NumGC-before.NumGC)/resyncs, "gc/resync")
		b.ReportMetric(gcCPU/resyncs, "gc-cpu-s/resync")
		b.ReportMetric((gcCPU+userCPU)/resyncs, "cpu-s/resync")
		b.Logf("n=%d: live %.1f MB after converging, %.1f MB after %d idle resyncs; registry %.1f MB, provider %.1f MB, controller+source %.1f MB, store %.1f MB, emulator and the rest %.1f MB",
			n, mb(total-base), mb(idleLive-base), resyncs, mb(noController-noRegistry), mb(noRegistry-noProvider),
			mb(idleLive-noController), mb(noProvider-noStore), mb(noStore-base))
	}
}
