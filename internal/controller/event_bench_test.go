package controller

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// BenchmarkEventByName is the cost of one event's reconcile on the event path, as the app wires it:
// the real Ingress source over an informer store of n Ingresses (one host and one status IP each: n
// endpoints), post-processing, the TXT registry over the in-memory provider, the mass-change guard
// on with its defaults. Each iteration changes one Ingress's address in the store, marks it as its
// informer event does, and runs the controller as the debounce does: the Ingress's endpoints are
// made again, its name planned, one update sent. The setup converges from empty and reports how
// long that took and the heap it left (converge-s, heap-MB).
//
// Run: go test -run '^$' -bench BenchmarkEventByName -benchtime 2000x ./internal/controller/
// (add -bench 'BenchmarkEventByName/ingresses=1000000' for the million; it needs about 8 GB).
func BenchmarkEventByName(b *testing.B) {
	for _, n := range []int{1000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("ingresses=%d", n), func(b *testing.B) {
			store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for i := range n {
				if err := store.Add(benchIngress(i, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))); err != nil {
					b.Fatal(err)
				}
			}
			ing, err := source.NewIngressFromLister(networkinglisters.NewIngressLister(store), source.DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			benchEvents(b, ing, "ingress/default/app-0", func(ip string) error { return store.Update(benchIngress(0, ip)) })
		})
	}
}

// BenchmarkServiceEventByName is BenchmarkEventByName for Services, whose endpoints are merged across
// objects: n LoadBalancer Services, one name each but for Services 0 and 1, which share one (a
// record set with both addresses). Each iteration changes Service 0's address: both Services are made
// again and merged, the shared name planned, one update sent.
//
// Run: go test -run '^$' -bench BenchmarkServiceEventByName -benchtime 2000x ./internal/controller/
func BenchmarkServiceEventByName(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for i := range n {
				if err := store.Add(benchService(i, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))); err != nil {
					b.Fatal(err)
				}
			}
			svc, err := source.NewServiceFromLister(corelisters.NewServiceLister(store), source.DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			benchEvents(b, svc, "service/default/svc-0", func(ip string) error { return store.Update(benchService(0, ip)) })
		})
	}
}

// benchEvents converges src (post-processed, the TXT registry over the in-memory provider, the
// mass-change guard on with its defaults), then measures one event of resource after setAddress gave
// it a new address.
func benchEvents(b *testing.B, inner source.Source, resource string, setAddress func(ip string) error) {
	src := source.PostProcess(inner, source.PostProcessConfig{})
	reg, err := txt.New(inmemory.New("example.com"), txt.Config{OwnerID: "bench", CacheInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	c := New(src, reg, Settings{OwnerID: "bench", Policy: plan.PolicySync,
		Guard: plan.Guard{MaxDeleteFraction: 0.3, MinChanges: 10, Window: 10 * time.Minute, Settle: 3 * time.Second, Zones: []string{"example.com"}}},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	start := time.Now()
	if _, err := c.RunOnce(ctx); err != nil {
		b.Fatal(err)
	}
	converge := time.Since(start)
	// As Run does, the controller counts the source's events (mark counts them), and a resync after
	// the sync finds nothing to do and leaves the idle memo, which events' runs keep (idle_carry.go).
	c.sourceCounted.Store(true)
	mark := func() {
		c.dirty.mark(resource)
		c.sourceEventCount.Add(1)
	}
	if _, err := c.runOnce(ctx, false); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// The first event after the sync folds the names the sync wrote into the registry's memo
	// (once, O(n)); the benchmark measures the events after it.
	if err := setAddress("192.0.2.254"); err != nil {
		b.Fatal(err)
	}
	mark()
	if _, err := c.runOnce(ctx, true); err != nil {
		b.Fatal(err)
	}
	var scoped int
	c.settings.Observer = observerFunc(func(r Report) {
		if r.Scope != nil {
			scoped++
		}
	})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := setAddress(fmt.Sprintf("192.0.2.%d", i%250+1)); err != nil {
			b.Fatal(err)
		}
		mark()
		out, err := c.runOnce(ctx, true)
		if err != nil {
			b.Fatal(err)
		}
		if i > 0 && i%250 != 0 && len(out.Changes.UpdateNew) != 1 {
			b.Fatalf("iteration %d: %d updates, want 1", i, len(out.Changes.UpdateNew))
		}
	}
	b.StopTimer()
	if scoped != b.N {
		b.Fatalf("%d of %d runs planned by name", scoped, b.N)
	}
	if !c.idle.valid {
		b.Fatal("the events' runs did not keep the idle memo")
	}
	b.ReportMetric(converge.Seconds(), "converge-s")
	b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-MB")
}

// benchService is a LoadBalancer Service at host-i, or at shared for Services 0 and 1.
func benchService(i int, ip string) *corev1.Service {
	host := fmt.Sprintf("host-%d.example.com", i)
	if i < 2 {
		host = "shared.example.com"
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("svc-%d", i),
			Annotations: map[string]string{source.PrefixAlpha + "hostname": host}},
		Spec:   corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: ip}}}},
	}
}

func benchIngress(i int, ip string) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("app-%d", i)},
		Spec:       networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: fmt.Sprintf("host-%d.example.com", i)}}},
		Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
			Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: ip}}}},
	}
}

// BenchmarkDesiredIndexBytes reports what the event path's desired index adds to the heap per
// endpoint (the endpoints themselves belong to the sources' results and are not counted): one object
// with one name per endpoint, the common case.
//
// Run: go test -run '^$' -bench BenchmarkDesiredIndexBytes ./internal/controller/
func BenchmarkDesiredIndexBytes(b *testing.B) {
	const n = 100_000
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = a(fmt.Sprintf("host-%d.example.com", i), "10.0.0.1", fmt.Sprintf("ingress/default/app-%d", i))
	}
	var perEndpoint float64
	for b.Loop() {
		before := testbed.LiveHeap()
		var x desiredIndex
		x.rebuild(eps)
		after := testbed.LiveHeap()
		perEndpoint = float64(after-before) / n
		runtime.KeepAlive(&x)
	}
	b.ReportMetric(perEndpoint, "bytes/endpoint")
}
