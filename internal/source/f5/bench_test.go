package f5

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// BenchmarkVirtualServerEndpoints is one generation pass over 10,000 VirtualServers (a host and a host
// alias each, spec and status addresses, a ttl annotation) in 100 namespaces, read from a cache as the
// cluster source reads them.
func BenchmarkVirtualServerEndpoints(b *testing.B) {
	objs := make([]*unstructured.Unstructured, 0, 10000)
	for i := range 10000 {
		addr := fmt.Sprintf("192.0.%d.%d", i/250, i%250+1)
		objs = append(objs, vs(fmt.Sprintf("ns%02d", i%100), fmt.Sprintf("v%05d", i), fmt.Sprintf("v%05d.example.com", i),
			[]string{fmt.Sprintf("www-v%05d.example.com", i)}, addr, addr, "ttl", "300"))
	}
	src, err := VirtualServerKind().Static.New(source.Config{}, objs)
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
