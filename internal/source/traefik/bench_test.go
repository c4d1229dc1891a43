package traefik

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// BenchmarkIngressRouteEndpoints is one generation pass over 10,000 IngressRoutes (two Host matchers
// each, a target annotation) in 100 namespaces, read from a cache as the cluster source reads them.
func BenchmarkIngressRouteEndpoints(b *testing.B) {
	objs := make([]*unstructured.Unstructured, 0, 10000)
	for i := range 10000 {
		objs = append(objs, route(Group, "IngressRoute", fmt.Sprintf("ns%02d", i%100), fmt.Sprintf("r%05d", i),
			[]string{fmt.Sprintf("Host(`r%05d.example.com`, `www-r%05d.example.com`) && PathPrefix(`/`)", i, i)},
			"target", fmt.Sprintf("192.0.%d.%d", i/250, i%250+1), "ttl", "300"))
	}
	src, err := source.NewStaticCRDSource(source.Config{}, crdKinds(source.Config{}), objs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := src.Endpoints(context.Background())
		if err != nil || len(res.Endpoints) != 20000 {
			b.Fatalf("%d endpoints, %v", len(res.Endpoints), err)
		}
	}
}
