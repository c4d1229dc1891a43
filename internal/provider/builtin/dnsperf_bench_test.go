package builtin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/coredns"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

const perfZone = "example.com"

// perfRecords are the 10,000 A records both servers serve, and the dnsperf query lines for them.
func perfRecords() ([]*endpoint.Endpoint, []string) {
	var eps []*endpoint.Endpoint
	var queries []string
	for i := range 10000 {
		name := fmt.Sprintf("host%d.%s", i, perfZone)
		eps = append(eps, endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256+0)))
		queries = append(queries, name+" A")
	}
	return eps, queries
}

// BenchmarkDNSPerfVsCoreDNS measures the built-in server and CoreDNS (etcd plugin, without and with
// the cache plugin the coredns provider's README recommends) serving the same 10,000 A records on this
// machine, one after the other, with dnsperf: throughput at saturation (dnsperf -l 10, 100 queries in
// flight), then latency percentiles at a fixed 10,000 qps for each. It runs once whatever b.N is:
//
//	go test -run '^$' -bench DNSPerfVsCoreDNS -benchtime 1x ./internal/provider/builtin/
func BenchmarkDNSPerfVsCoreDNS(b *testing.B) {
	eps, queries := perfRecords()
	ctx := context.Background()
	dur := 10 * time.Second

	measure := func(b *testing.B, name, addr string) testbed.DNSPerfResult {
		tp := testbed.DNSPerf{Addr: addr, Queries: queries, Duration: dur}.Run(b)
		lat := testbed.DNSPerf{Addr: addr, Queries: queries, Duration: 5 * time.Second, MaxQPS: 10000, Latencies: true}.Run(b)
		if tp.Rcodes["NOERROR"] == 0 || tp.Lost > tp.Sent/100 || len(tp.Rcodes) != 1 {
			b.Fatalf("%s: answers are not all NOERROR or too many were lost:\n%s", name, tp.Output)
		}
		tp.P50, tp.P90, tp.P99, tp.P999 = lat.P50, lat.P90, lat.P99, lat.P999
		b.Logf("%-22s %s", name, tp)
		return tp
	}

	// (a) the built-in server.
	srv := startServer(b, perfZone)
	p, err := New(srv, "default")
	if err != nil {
		b.Fatal(err)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: eps}); err != nil {
		b.Fatal(err)
	}
	builtin := measure(b, "builtin", srv.Addrs()[0])
	_ = srv.Close()

	// (b) CoreDNS reading the same records from etcd, written by the coredns provider.
	etcd := testbed.StartEtcd(b)
	cp, err := coredns.New(coredns.Config{Endpoints: []string{etcd.Endpoint}, Prefix: "/skydns/", DomainFilter: []string{perfZone}})
	if err != nil {
		b.Fatal(err)
	}
	defer cp.Close()
	writeAll(b, cp, eps)
	port := testbed.FreePort(b)
	plain := testbed.StartCoreDNS(b, port, testbed.EtcdCorefile(port, etcd.Endpoint, "/skydns", perfZone+"."))
	corePlain := measure(b, "coredns etcd", plain.Addr)

	port = testbed.FreePort(b)
	cached := testbed.StartCoreDNS(b, port, strings.Replace(testbed.EtcdCorefile(port, etcd.Endpoint, "/skydns", perfZone+"."), "    errors\n", "    cache 30\n    errors\n", 1))
	coreCached := measure(b, "coredns etcd+cache", cached.Addr)

	b.ReportMetric(builtin.QPS, "builtin-qps")
	b.ReportMetric(float64(builtin.P50.Microseconds()), "builtin-p50-µs")
	b.ReportMetric(float64(builtin.P99.Microseconds()), "builtin-p99-µs")
	b.ReportMetric(corePlain.QPS, "coredns-qps")
	b.ReportMetric(float64(corePlain.P50.Microseconds()), "coredns-p50-µs")
	b.ReportMetric(float64(corePlain.P99.Microseconds()), "coredns-p99-µs")
	b.ReportMetric(coreCached.QPS, "coredns-cache-qps")
	b.ReportMetric(float64(coreCached.P50.Microseconds()), "coredns-cache-p50-µs")
	b.ReportMetric(float64(coreCached.P99.Microseconds()), "coredns-cache-p99-µs")
	b.ReportMetric(builtin.QPS/corePlain.QPS, "x-coredns")
	b.ReportMetric(builtin.QPS/coreCached.QPS, "x-coredns-cache")
	for b.Loop() {
	}
}

// writeAll writes record sets in chunks, as the controller would over several reconciles.
func writeAll(b *testing.B, p provider.Provider, eps []*endpoint.Endpoint) {
	for i := 0; i < len(eps); i += 1000 {
		if err := p.ApplyChanges(context.Background(), &plan.Changes{Create: eps[i:min(i+1000, len(eps))]}); err != nil {
			b.Fatal(err)
		}
	}
}
