package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

// hostnames returns n A records with their ownership TXT records.
func hostnames(n int, ip string) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for i := 0; i < n; i++ {
		e := endpoint.NewWithTTL(fmt.Sprintf("host%d.example.com", i), endpoint.RecordTypeA, 300, ip)
		out = append(out, e, owned(e))
	}
	return out
}

// counting counts the POST /records a handler receives.
func counting(h http.Handler, posts *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == pathRecords {
			posts.Add(1)
		}
		h.ServeHTTP(w, r)
	})
}

// Publishing 2,000 hostnames (4,000 record sets) from scratch through the client and zonekeeper's
// server in front of the in-memory provider: the cost of the protocol itself.
func BenchmarkPublish2000(b *testing.B) {
	var posts atomic.Int64
	for b.Loop() {
		srv := httptest.NewServer(counting(Handler(inmemory.New("example.com"), plan.DomainFilter{}, nil), &posts))
		p, err := New(Config{URL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: hostnames(2000, "192.0.2.1")}); err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
	b.ReportMetric(float64(posts.Load())/float64(b.N), "POSTs/op")
}

// One change in steady state, against a server holding 2,000 hostnames.
func BenchmarkOneChangeSteadyState(b *testing.B) {
	var posts atomic.Int64
	srv := httptest.NewServer(counting(Handler(inmemory.New("example.com"), plan.DomainFilter{}, nil), &posts))
	defer srv.Close()
	p, err := New(Config{URL: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: hostnames(2000, "192.0.2.1")}); err != nil {
		b.Fatal(err)
	}
	posts.Store(0)
	ips := []string{"192.0.2.2", "192.0.2.3"}
	cur := endpoint.NewWithTTL("host7.example.com", endpoint.RecordTypeA, 300, "192.0.2.1")
	for i := 0; b.Loop(); i++ {
		next := endpoint.NewWithTTL("host7.example.com", endpoint.RecordTypeA, 300, ips[i%2])
		if err := p.ApplyChanges(context.Background(), &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur}, UpdateNew: []*endpoint.Endpoint{next}}); err != nil {
			b.Fatal(err)
		}
		cur = next
	}
	b.ReportMetric(float64(posts.Load())/float64(b.N), "POSTs/op")
}

// One record refused among 2,000 hostnames by a server that refuses a body whole with a bare 500, as
// third-party webhook servers do: the requests needed to isolate it and apply the rest.
func BenchmarkIsolateOneRefusedAmong2000(b *testing.B) {
	var posts int
	for b.Loop() {
		f := &fakeWebhook{refuse: "host1234.example.com"}
		srv := httptest.NewServer(f)
		p, err := New(Config{URL: srv.URL})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: hostnames(2000, "192.0.2.1")}); err == nil {
			b.Fatal("nothing refused")
		}
		if len(f.applied) != 3998 {
			b.Fatalf("applied %d, want 3998", len(f.applied))
		}
		posts += f.posts
		srv.Close()
	}
	b.ReportMetric(float64(posts)/float64(b.N), "POSTs/op")
}
