package e2e

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// 2,000 hostnames published while the Cloudflare emulator throttles to 4 requests per second for
// 60 s: zonekeeper converges with every record present exactly once (2,000 A and their 2,000 registry
// TXT) and never exits, and its calls are compared with the lower limit, ⌈changes / batch size⌉ plus
// the listings. With its defaults (4 per second, 1 s between batches) it stays under the limit; with a
// budget of 20 per second and no pause it is throttled, counts the 429s in its metric and still
// converges.
func TestCloudflareTwoThousandHostnamesThrottled(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 hostnames")
	}
	e := throttleScenario(t)
	t.Run("defaults", func(t *testing.T) { throttledPublish(t, e, false) })
	t.Run("eager", func(t *testing.T) {
		throttledPublish(t, e, true, "--cloudflare-requests-per-second=20", "--batch-change-interval=0s")
	})
}

// throttleScenario starts a cluster holding the 2,000 hostnames of the throttle tests: 20 Services
// s0…s19 with 100 hostnames hS-H.example.com each, Service S at 10.60.S.1 (also used by
// TestCloudflareThrottledExternalDNS, so both tools publish the same objects).
func throttleScenario(t *testing.T) *env {
	t.Helper()
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	const perService, services = 100, 20
	for s := range services {
		hosts := make([]string, perService)
		for h := range hosts {
			hosts[h] = fmt.Sprintf("h%d-%d.example.com", s, h)
		}
		e.createService(t, annotated(loadBalancer(fmt.Sprintf("s%d", s), "default", nil), "hostname", strings.Join(hosts, ",")), fmt.Sprintf("10.60.%d.1", s))
	}
	return e
}

func throttledPublish(t *testing.T, e *env, mustThrottle bool, flags ...string) {
	const perService, services = 100, 20
	emu := cloudflareemu.New(cloudflareemu.Options{})
	hs := httptest.NewServer(emu)
	t.Cleanup(hs.Close)
	if _, err := emu.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.SetRateLimit(4, 4); err != nil {
		t.Fatal(err)
	}
	lifted := make(chan struct{})
	time.AfterFunc(60*time.Second, func() { _ = emu.SetRateLimit(0, 0); close(lifted) })
	t.Setenv("CLOUDFLARE_BASE_URL", hs.URL+cloudflareemu.APIPrefix)
	t.Setenv("CF_API_TOKEN", "x")
	start := time.Now()
	zk := e.start(t, append([]string{"--provider=cloudflare", "--source=service", "--txt-owner-id=e2e", "--policy=sync",
		"--interval=1m"}, flags...)...)

	const want = 2 * services * perService
	testbed.Eventually(t, 4*time.Minute, "2,000 hostnames and their TXT published", func() error {
		if !zk.running() {
			return fmt.Errorf("zonekeeper exited")
		}
		if n := len(emu.Dump()[0].Records); n != want {
			return fmt.Errorf("%d records", n)
		}
		return nil
	})
	took := time.Since(start)
	counters := emu.Counters()
	recs := emu.Dump()[0].Records
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Name+" "+r.Type]++
	}
	for s := range services {
		for h := range perService {
			name := fmt.Sprintf("h%d-%d.example.com", s, h)
			if seen[name+" A"] != 1 || seen["a-"+name+" TXT"] != 1 {
				t.Fatalf("%s: %d A, %d TXT", name, seen[name+" A"], seen["a-"+name+" TXT"])
			}
		}
	}
	if !zk.running() {
		t.Fatal("zonekeeper exited")
	}
	_, metrics, err := zk.get("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if mustThrottle {
		if counters.Throttled == 0 {
			t.Fatalf("the emulator answered no 429 (calls %v): the test did not test throttling", counters.Calls)
		}
		if want := fmt.Sprintf(`zonekeeper_provider_throttled_total{provider="cloudflare"} %d`, counters.Throttled); !strings.Contains(metrics, want) {
			t.Errorf("want %s in the metrics:\n%s", want, tail(metrics, 2000))
		}
	}
	// Lower limit: 4,000 records in batches of 200, one zone listing, one (empty) record listing.
	lower := (want+199)/200 + 1 + 1
	answered := counters.Total - counters.Throttled
	t.Logf("converged in %v (throttling for the first 60 s): %d calls (%d answered 429, %d not), lower limit %d, ratio %.2f (answered calls %.2f); calls %v",
		took.Round(time.Second), counters.Total, counters.Throttled, answered, lower,
		float64(counters.Total)/float64(lower), float64(answered)/float64(lower), counters.Calls)
	for _, l := range strings.Split(metrics, "\n") {
		if strings.HasPrefix(l, "zonekeeper_provider_throttled_total") {
			t.Log(l)
		}
	}
	select {
	case <-lifted:
	default:
		t.Log("converged while the emulator was still throttling")
	}
}
