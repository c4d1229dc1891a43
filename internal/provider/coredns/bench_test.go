package coredns

import (
	"context"
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

func benchNames(n int, tag string) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, n)
	for i := range eps {
		eps[i] = endpoint.NewWithTTL(fmt.Sprintf("%s-%d.example.com", tag, i), endpoint.RecordTypeA, 300, fmt.Sprintf("10.%d.%d.%d", i/65536%256, i/256%256, i%256))
	}
	return eps
}

// BenchmarkCoreDNSApply creates 1000 names (one A each) per operation on a real etcd, in a fresh set
// of names every iteration.
func BenchmarkCoreDNSApply(b *testing.B) {
	bed := newBed(b, startEtcd(b), false, "example.com")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		eps := benchNames(1000, fmt.Sprintf("apply%d", i))
		if err := bed.provider.ApplyChanges(ctx, &plan.Changes{Create: eps}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoreDNSRecords lists 10,000 record sets (20,000 keys: an A and its ownership TXT each).
func BenchmarkCoreDNSRecords(b *testing.B) {
	bed := newBed(b, startEtcd(b), false, "example.com")
	ctx := context.Background()
	const n = 10000
	eps := benchNames(n, "rec")
	for i := range eps {
		eps = append(eps, endpoint.NewWithTTL("a-"+eps[i].DNSName, endpoint.RecordTypeTXT, 300, `"heritage=external-dns,external-dns/owner=default"`))
	}
	if err := bed.provider.ApplyChanges(ctx, &plan.Changes{Create: eps}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := bed.provider.Records(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 2*n {
			b.Fatalf("Records returned %d record sets, want %d", len(got), 2*n)
		}
	}
}
