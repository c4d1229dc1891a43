package e2e

import (
	"fmt"
	"testing"
	"time"
)

// providerCalls returns a function reading how many calls the instance has made to provider.
func providerCalls(t *testing.T, z *instance, provider string) func() float64 {
	return func() float64 {
		_, body, err := z.get("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return metricSum(body, "zonekeeper_provider_calls_total", fmt.Sprintf("provider=%q", provider))
	}
}

// runOutage takes a DNS server down for d with down, changes objects halfway through (mutate(0) at once,
// mutate(1) after d/2), brings it back with up, and checks that zonekeeper kept running and backed off:
// at most 40 provider calls meanwhile (1, 2, 4, … 60 s with jitter, each attempt a few calls).
func runOutage(t *testing.T, z *instance, calls func() float64, name string, d time.Duration, down, up func(), mutate func(i int)) {
	t.Helper()
	before := calls()
	down()
	mutate(0)
	time.Sleep(d / 2)
	mutate(1)
	time.Sleep(d / 2)
	during := calls() - before
	up()
	if during > 40 {
		t.Errorf("%s for %s: %.0f provider calls, want a bounded backoff (≤40)", name, d, during)
	}
	t.Logf("%s for %s: %.0f provider calls meanwhile", name, d, during)
	if !z.running() {
		t.Fatalf("zonekeeper exited during %s:\n%s", name, tail(z.log.String(), 4000))
	}
}

// expectIdleProvider is expectIdle that also asserts no provider call over the quiet period.
func expectIdleProvider(t *testing.T, z *instance, calls func() float64, quiet time.Duration) float64 {
	t.Helper()
	time.Sleep(3 * time.Second)
	before := calls()
	cpu := expectIdle(t, z, quiet)
	if n := calls() - before; n != 0 {
		t.Errorf("not idle: %v provider calls in about %s", n, quiet)
	}
	return cpu
}
