package gateway

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// benchSource is a gateway-httproute source over filled caches: 100 Gateways in 10 namespaces, each
// with a catch-all listener and a wildcard one open to all namespaces, and routes spread over them,
// each with two hostnames and one accepted parent.
func benchSource(b *testing.B, routes int) *Source {
	b.Helper()
	k, err := source.NewKernel(source.Config{})
	if err != nil {
		b.Fatal(err)
	}
	newIndexer := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	s := &Source{k: k, a: httpRoute, routes: newIndexer(), gateways: newIndexer(), nss: newIndexer()}
	all := gwv1.NamespacesFromAll
	wild := gwv1.Hostname("*.example.com")
	for i := 0; i < 10; i++ {
		if err := s.nss.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("ns%d", i)}}); err != nil {
			b.Fatal(err)
		}
	}
	ip := gwv1.IPAddressType
	for g := 0; g < 100; g++ {
		gw := &gwv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns%d", g%10), Name: fmt.Sprintf("gw%d", g)},
			Spec: gwv1.GatewaySpec{Listeners: []gwv1.Listener{
				{Name: "http", Protocol: gwv1.HTTPProtocolType, Port: 80, AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &all}}},
				{Name: "https", Protocol: gwv1.HTTPSProtocolType, Port: 443, Hostname: &wild, AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &all}}},
			}},
			Status: gwv1.GatewayStatus{Addresses: []gwv1.GatewayStatusAddress{{Type: &ip, Value: fmt.Sprintf("10.0.%d.%d", g/250, g%250+1)}}},
		}
		if err := s.gateways.Add(gw); err != nil {
			b.Fatal(err)
		}
	}
	for r := 0; r < routes; r++ {
		g := r % 100
		gwNS := gwv1.Namespace(fmt.Sprintf("ns%d", g%10))
		ref := gwv1.ParentReference{Namespace: &gwNS, Name: gwv1.ObjectName(fmt.Sprintf("gw%d", g))}
		rt := &gwv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns%d", r%10), Name: fmt.Sprintf("route%d", r),
				Annotations: map[string]string{"external-dns.alpha.kubernetes.io/ttl": "300"}},
			Spec: gwv1.HTTPRouteSpec{
				CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{ref}},
				Hostnames:       []gwv1.Hostname{gwv1.Hostname(fmt.Sprintf("r%d.example.com", r)), gwv1.Hostname(fmt.Sprintf("r%d.example.org", r))},
			},
			Status: gwv1.HTTPRouteStatus{RouteStatus: gwv1.RouteStatus{Parents: []gwv1.RouteParentStatus{{
				ParentRef: ref, ControllerName: "example.net/gw",
				Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue}},
			}}}},
		}
		if err := s.routes.Add(rt); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkHTTPRoutes10k: one Endpoints pass over 10,000 HTTPRoutes on 100 Gateways: 20,000
// endpoints (each route's .com name matches both listeners and gets one record, its .org name the
// catch-all listener).
func BenchmarkHTTPRoutes10k(b *testing.B) {
	before := testbed.LiveHeap()
	s := benchSource(b, 10000)
	after := testbed.LiveHeap()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := s.Endpoints(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Endpoints) != 20000 || len(res.Problems) != 0 {
			b.Fatalf("%d endpoints, %d problems", len(res.Endpoints), len(res.Problems))
		}
	}
	b.ReportMetric(float64(after-before)/(1<<20), "cache-MiB")
}
