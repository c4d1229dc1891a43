package source

import (
	"context"
	"fmt"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// BenchmarkIngressEndpoints measures one Endpoints call over 10,000 ingresses held in an indexer as
// the informer keeps them (compact, ingressTransform). Each ingress has two rule hosts, a TLS host, the
// hostname, ttl and aws-weight annotations under both prefixes, and an IP plus a hostname in status.
func BenchmarkIngressEndpoints(b *testing.B) {
	const n = 10000
	c, err := compile(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	transform := ingressTransform(c)
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i := 0; i < n; i++ {
		ing := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: fmt.Sprintf("ns-%d", i%50),
				Name:      fmt.Sprintf("ing-%d", i),
				Annotations: map[string]string{
					PrefixAlpha + "hostname":                     fmt.Sprintf("ann-%d.example.com", i),
					PrefixGA + "ttl":                             "300",
					PrefixAlpha + "aws-weight":                   "10",
					"nginx.ingress.kubernetes.io/rewrite-target": "/",
				},
			},
			Spec: networkingv1.IngressSpec{
				Rules: []networkingv1.IngressRule{{Host: fmt.Sprintf("a-%d.example.com", i)}, {Host: fmt.Sprintf("b-%d.example.com", i)}},
				TLS:   []networkingv1.IngressTLS{{Hosts: []string{fmt.Sprintf("a-%d.example.com", i)}}},
			},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{
				Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10", Hostname: "lb.example.net"}},
			}},
		}
		obj, err := transform(ing)
		if err != nil {
			b.Fatal(err)
		}
		if err := idx.Add(obj); err != nil {
			b.Fatal(err)
		}
	}
	s := &IngressSource{c: c, ingresses: storeIngresses{idx}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := s.Endpoints(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Endpoints) != 6*n || len(r.Problems) != 0 {
			b.Fatalf("%d endpoints, %d problems", len(r.Endpoints), len(r.Problems))
		}
	}
}
