package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// BenchmarkEventToAnswer measures the time from patching an Ingress's status IP to CoreDNS answering
// the new address, with default flags (--min-event-sync-interval=100ms, --interval=1m). Each iteration
// is one change; run with -benchtime=100x for the figure in docs/benchmarks.md. It reports the median
// and the 95th percentile.
func BenchmarkEventToAnswer(b *testing.B) {
	e := startEnv(b)
	ing := e.createIngress(b, ingress("latency", "default", nil, "latency.example.com"), "10.1.0.1")
	e.start(b, "--source=ingress", "--txt-owner-id=bench", "--policy=sync")
	waitAnswer(b, e, "latency.example.com", "10.1.0.1", 30*time.Second)

	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ip := fmt.Sprintf("10.1.%d.%d", (i/250)%250+1, i%250+1)
		if ip == "10.1.0.1" {
			ip = "10.2.0.1"
		}
		start := time.Now()
		ing = e.setIngressIP(b, ing, ip)
		waitAnswer(b, e, "latency.example.com", ip, 10*time.Second)
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(samples[(len(samples)*95)/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(samples[len(samples)-1].Microseconds())/1000, "max-ms")
}

func waitAnswer(b *testing.B, e *env, name, want string, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		_, got, err := e.answers(name, dns.TypeA)
		if err == nil && len(got) == 1 && got[0] == want {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	b.Fatalf("%s did not answer %s within %s", name, want, timeout)
}
