package rfc2136

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// hostnames are n record sets with their ownership TXT, as the TXT registry writes them.
func hostnames(n int) []*endpoint.Endpoint {
	eps := make([]*endpoint.Endpoint, 0, 2*n)
	for i := 0; i < n; i++ {
		eps = append(eps,
			ep(fmt.Sprintf("host%d.example.com", i), endpoint.RecordTypeA, 300, fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)),
			ep(fmt.Sprintf("a-host%d.example.com", i), endpoint.RecordTypeTXT, 300, `"heritage=external-dns,external-dns/owner=bench,external-dns/resource=ingress/default/web"`))
	}
	return eps
}

// BenchmarkPublish2000 publishes 2,000 hostnames (4,000 record sets with the ownership TXTs) into an
// empty zone on BIND, then deletes them (untimed) for the next round.
func BenchmarkPublish2000(b *testing.B) {
	bd := newBed(b)
	eps := hostnames(2000)
	var updates int64
	for i := 0; i < b.N; i++ {
		before := bd.p.updates.Load()
		mustApply(b, bd.p, &plan.Changes{Create: eps})
		updates += bd.p.updates.Load() - before
		b.StopTimer()
		mustApply(b, bd.p, &plan.Changes{Delete: eps})
		b.StartTimer()
	}
	b.ReportMetric(float64(updates)/float64(b.N), "updates/op")
}

// BenchmarkSteadyStateChange applies one changed address in a zone of 2,000 published hostnames.
func BenchmarkSteadyStateChange(b *testing.B) {
	bd := newBed(b)
	mustApply(b, bd.p, &plan.Changes{Create: hostnames(2000)})
	old := ep("host7.example.com", endpoint.RecordTypeA, 300, "10.0.0.7")
	b.ResetTimer()
	before := bd.p.updates.Load()
	for i := 0; i < b.N; i++ {
		next := ep("host7.example.com", endpoint.RecordTypeA, 300, fmt.Sprintf("192.0.2.%d", i%250+1))
		mustApply(b, bd.p, &plan.Changes{UpdateOld: []*endpoint.Endpoint{old}, UpdateNew: []*endpoint.Endpoint{next}})
		old = next
	}
	b.ReportMetric(float64(bd.p.updates.Load()-before)/float64(b.N), "updates/op")
}
