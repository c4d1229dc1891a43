package e2e

import (
	"testing"
	"time"
)

// expectIdle waits for the in-process instance to settle, then asserts that it runs no reconcile over
// quiet, and returns the CPU it used meanwhile in CPU-seconds per idle minute (this test process:
// zonekeeper and the idle test; the servers run outside it).
func expectIdle(t *testing.T, z *instance, quiet time.Duration) float64 {
	t.Helper()
	time.Sleep(3 * time.Second)
	syncs := func() float64 {
		_, body, err := z.get("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return metricSum(body, "zonekeeper_sync_duration_seconds_count")
	}
	before := syncs()
	cpu := processCPU(t)
	time.Sleep(quiet)
	idle := processCPU(t) - cpu
	if n := syncs() - before; n != 0 {
		t.Errorf("not idle: %v reconciles in %s", n, quiet)
	}
	return idle.Seconds() * float64(time.Minute) / float64(quiet)
}
