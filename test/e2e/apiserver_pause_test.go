package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Issue 11 fault suite: the Kubernetes API server stops answering for 40 s (SIGSTOP: connections hang,
// as in a partition) while zonekeeper runs with a 5 s resync. It never exits and deletes nothing while
// it cannot see the cluster (its caches are the last state it saw, and resyncs run over them); once the
// API server is back, its informers reconnect and a Service created then is published; every other
// record is still there.
func TestAPIServerPauseKeepsRecords(t *testing.T) {
	e := startEnv(t)
	const n = 5
	for i := range n {
		name := fmt.Sprintf("svc%d", i)
		e.createService(t, annotated(loadBalancer(name, "default", nil), "hostname", name+".example.com"), fmt.Sprintf("10.50.0.%d", i+1))
	}
	z := e.start(t, "--source=service", "--txt-owner-id=e2e", "--policy=sync", "--interval=5s")
	for i := range n {
		e.expectAnswer(t, converge, fmt.Sprintf("svc%d.example.com", i), dns.TypeA, fmt.Sprintf("10.50.0.%d", i+1))
	}
	deletes := func() float64 {
		_, body, err := z.get("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return metricSum(body, "zonekeeper_changes_applied_total", `action="delete"`)
	}
	before := deletes()

	e.kube.Pause(t)
	for end := time.Now().Add(40 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Second) {
		for i := range n {
			e.expectAnswer(t, time.Second, fmt.Sprintf("svc%d.example.com", i), dns.TypeA, fmt.Sprintf("10.50.0.%d", i+1))
		}
		if !z.running() {
			t.Fatalf("zonekeeper exited while the API server was paused:\n%s", tail(z.log.String(), 4000))
		}
	}
	e.kube.Resume(t)

	start := time.Now()
	e.createService(t, annotated(loadBalancer("late", "default", nil), "hostname", "late.example.com"), "10.50.1.1")
	e.expectAnswer(t, 90*time.Second, "late.example.com", dns.TypeA, "10.50.1.1")
	t.Logf("a Service created after the pause was published %s later", time.Since(start).Round(100*time.Millisecond))
	for i := range n {
		e.expectAnswer(t, time.Second, fmt.Sprintf("svc%d.example.com", i), dns.TypeA, fmt.Sprintf("10.50.0.%d", i+1))
	}
	if d := deletes() - before; d != 0 {
		t.Errorf("%.0f records deleted around the pause", d)
	}
	if !z.running() {
		t.Fatal("zonekeeper exited")
	}

	// Back to baseline: the 5 s resyncs go on, but they write nothing and cost little CPU.
	changes := func() float64 {
		_, body, err := z.get("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return metricSum(body, "zonekeeper_changes_applied_total")
	}
	time.Sleep(3 * time.Second)
	const quiet = 15 * time.Second
	applied, cpu := changes(), processCPU(t)
	time.Sleep(quiet)
	perMinute := (processCPU(t) - cpu).Seconds() * float64(time.Minute) / float64(quiet)
	if n := changes() - applied; n != 0 {
		t.Errorf("%.0f changes applied in %s after the pause, with nothing changing", n, quiet)
	}
	if perMinute > 3 {
		t.Errorf("%.2f CPU-seconds per minute after the pause (resyncs every 5 s over 6 Services)", perMinute)
	}
	t.Logf("after the pause: no write in %s, %.3f CPU-s per minute with a resync every 5 s", quiet, perMinute)
}
