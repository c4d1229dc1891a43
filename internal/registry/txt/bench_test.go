package txt

import (
	"context"
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// benchZone holds 10k owned A records and their 10k ownership TXTs.
func benchZone(b *testing.B, n int) *Registry {
	mem, _ := newZone()
	eps := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("host-%d.example.com", i)
		eps = append(eps,
			endpoint.New(name, "A", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)),
			txtRecord("a-"+name, fmt.Sprintf(`"heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/default/host-%d"`, i)))
	}
	seed(b, mem, eps...)
	return mustNew(b, mem, Config{OwnerID: "cluster-a"})
}

// BenchmarkRecords is a full Records call at 10k records: provider listing (the in-memory provider's
// copy and sort included), parsing 10k TXTs, folding and copying.
func BenchmarkRecords(b *testing.B) {
	r := benchZone(b, 10000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		eps, err := r.Records(ctx)
		if err != nil || len(eps) != 10000 {
			b.Fatal(err, len(eps))
		}
	}
}

// BenchmarkCachedRecords is the same view served from the cache.
func BenchmarkCachedRecords(b *testing.B) {
	r := benchZone(b, 10000)
	if _, err := r.Records(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if eps, ok := r.CachedRecords(); !ok || len(eps) != 10000 {
			b.Fatal(ok, len(eps))
		}
	}
}
