package ambassador

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// What a Service's event costs the Services' informer: the scan of the cached Hosts' annotations
// (every tenth Host names the Service), at 1,000 and 10,000 Hosts; "endpoints" is what the listing of
// those Hosts alone costs, a part of the full plan the event no longer runs.
func BenchmarkServiceDependents(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			objs := make([]*unstructured.Unstructured, n)
			for i := range objs {
				svc := "ambassador/other"
				if i%10 == 0 {
					svc = "ambassador/edge"
				}
				objs[i] = host(v2, "default", fmt.Sprintf("h%d", i), fmt.Sprintf("h%d.example.com", i), svc)
			}
			built, err := newStatic(source.Config{}, append(objs, service("ambassador", "edge", nil, "ip:192.0.2.1"), service("ambassador", "other", nil, "ip:192.0.2.2")))
			if err != nil {
				b.Fatal(err)
			}
			readers := &serviceReaders{}
			readers.hosts.Store(built.(*Source).CRDSource)
			edge := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ambassador", Name: "edge"}}
			b.Run("scan", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if got := readers.dependents(edge); len(got) != n/10 {
						b.Fatalf("%d Hosts named, want %d", len(got), n/10)
					}
				}
			})
			b.Run("endpoints", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if res, err := built.Endpoints(context.Background()); err != nil || len(res.Endpoints) != n {
						b.Fatalf("%d endpoints (%v), want %d", len(res.Endpoints), err, n)
					}
				}
			})
		})
	}
}
