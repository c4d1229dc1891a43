package source

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// BenchmarkMergedObjectsBytes reports what a merging source's memory of its objects' names adds to
// the heap per object (the endpoints themselves are the source's results and are not counted): one
// object with one name, the common case.
//
// Run: go test -run '^$' -bench BenchmarkMergedObjectsBytes ./internal/source/
func BenchmarkMergedObjectsBytes(b *testing.B) {
	const n = 100_000
	eps := oneNameServices(n)
	var perObject float64
	for b.Loop() {
		before := testbed.LiveHeap()
		var m mergedObjects
		m.remember(eps)
		after := testbed.LiveHeap()
		perObject = float64(after-before) / n
		runtime.KeepAlive(&m)
	}
	b.ReportMetric(perObject, "bytes/object")
}

// BenchmarkMergedObjectsRememberUnchanged is what a full listing adds to a merging source when no
// object's names changed (every idle resync): a pass over the objects, no allocation.
//
// Run: go test -run '^$' -bench BenchmarkMergedObjectsRememberUnchanged -benchmem ./internal/source/
func BenchmarkMergedObjectsRememberUnchanged(b *testing.B) {
	const n = 100_000
	eps := oneNameServices(n)
	var m mergedObjects
	m.remember(eps)
	b.ReportAllocs()
	for b.Loop() {
		m.remember(eps)
	}
}

// oneNameServices is the endpoints of n Services with one name each.
func oneNameServices(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = endpoint.New(fmt.Sprintf("host-%d.example.com", i), endpoint.RecordTypeA, "10.0.0.1").
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/svc-%d", i))
	}
	return eps
}
