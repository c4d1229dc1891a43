package pdns

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// hostnames returns n hostnames with their ownership TXT records, as the TXT registry sends them.
func hostnames(n int, ipByte int) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("host%d.example.com", i)
		out = append(out,
			endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, fmt.Sprintf("10.%d.%d.%d", ipByte, i/250, i%250+1)),
			endpoint.NewWithTTL("a-"+name, endpoint.RecordTypeTXT, 300, fmt.Sprintf(`"heritage=external-dns,external-dns/owner=bench,external-dns/resource=ingress/default/host%d"`, i)))
	}
	return out
}

// Publishing 2,000 hostnames (4,000 rrsets with their ownership TXT) into an empty zone on
// pdns_server with sqlite.
func BenchmarkPublish2000FromScratch(b *testing.B) {
	s := startServer(b)
	counter := countPatches(s.p)
	eps := hostnames(2000, 1)
	var patches int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if st, body := s.pdns.API(b, http.MethodDelete, "/api/v1/servers/localhost/zones/example.com.", nil); st != http.StatusNoContent {
			b.Fatalf("delete zone: %d %s", st, body)
		}
		s.pdns.CreateZone(b, "example.com")
		before := counter.patches.Load()
		b.StartTimer()
		if err := s.p.ApplyChanges(ctxT(b), &plan.Changes{Create: eps}); err != nil {
			b.Fatal(err)
		}
		patches += counter.patches.Load() - before
	}
	b.ReportMetric(float64(patches)/float64(b.N), "patches/op")
}

// One hostname changes its address in a zone holding 2,000: the steady-state cost of an event.
func BenchmarkOneChangeIn2000(b *testing.B) {
	s := startServer(b)
	if err := s.p.ApplyChanges(ctxT(b), &plan.Changes{Create: hostnames(2000, 1)}); err != nil {
		b.Fatal(err)
	}
	counter := countPatches(s.p)
	b.ResetTimer()
	for i := range b.N {
		e := endpoint.NewWithTTL("host7.example.com", endpoint.RecordTypeA, 300, fmt.Sprintf("10.2.0.%d", i%250+1))
		if err := s.p.ApplyChanges(ctxT(b), &plan.Changes{UpdateNew: []*endpoint.Endpoint{e}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(counter.patches.Load())/float64(b.N), "patches/op")
}

// Listing a zone of 2,000 hostnames (4,000 rrsets): the cost of a full read (the cache is dropped
// before each, as after a relisting period or a moved serial).
func BenchmarkRecords2000(b *testing.B) {
	s := startServer(b)
	if err := s.p.ApplyChanges(ctxT(b), &plan.Changes{Create: hostnames(2000, 1)}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		s.p.Invalidate()
		eps, err := s.p.Records(ctxT(b))
		if err != nil || len(eps) != 4000 {
			b.Fatalf("Records: %d, %v", len(eps), err)
		}
	}
}
