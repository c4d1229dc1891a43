package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

// googleThrottleFlags are the flags of the Google throttle scenario: Changes of 100 without a pause,
// so that the 4,000 record sets take 40 Changes and meet the emulator's limit.
var googleThrottleFlags = []string{"--provider=google", "--google-project=" + googleDiffProject, "--source=service",
	"--txt-owner-id=e2e", "--policy=sync", "--domain-filter=example.com", "--interval=1m",
	"--google-batch-change-size=100", "--google-batch-change-interval=0s"}

// googleThrottleLimit is the emulator's limit for the first 60 s: 2 requests per second per project.
const googleThrottleLimit = 2

// 2,000 hostnames (the Cloudflare throttle scenario's Services) published while the Cloud DNS emulator
// allows 2 requests per second for 60 s (429 rateLimitExceeded above it, no Retry-After): zonekeeper
// converges with every record set present exactly once (2,000 A and their 2,000 registry TXT), never
// exits, and counts every 429 in zonekeeper_provider_throttled_total; its calls are compared with the
// lower limit. The real external-dns (each built version, as a deployment runs it, for at most 150 s)
// gets the same scenario on its own emulator, and its outcome and calls are reported beside.
func TestGoogleTwoThousandHostnamesThrottled(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 hostnames")
	}
	e := throttleScenario(t)
	ca, err := emuproxy.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	const perService, services = 100, 20
	const want = 2*services*perService + 2 // and the zone's SOA and NS
	// Lower limit: 4,000 additions in Changes of 100, one zone list, one record-set page.
	lower := 2*services*perService/100 + 1 + 1
	throttle := func(emu *googleDiffEmulator) {
		if err := emu.srv.SetRateLimit(googleThrottleLimit, googleThrottleLimit); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(60*time.Second, func() { _ = emu.srv.SetRateLimit(0, 0) })
	}
	published := func(emu *googleDiffEmulator) (int, error) {
		n := 0
		for _, z := range emu.srv.Dump() {
			if z.Name == "pub" {
				n = len(z.RRSets)
			}
		}
		if n != want {
			return n, fmt.Errorf("%d record sets", n)
		}
		return n, nil
	}

	t.Run("zonekeeper", func(t *testing.T) {
		emu := newGoogleDiffEmulator(t, ca)
		throttle(emu)
		t.Setenv("CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS", emu.httpURL)
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", emu.zkKey)
		start := time.Now()
		zk := e.start(t, googleThrottleFlags...)
		testbed.Eventually(t, 4*time.Minute, "2,000 hostnames and their TXT published", func() error {
			if !zk.running() {
				return fmt.Errorf("zonekeeper exited")
			}
			_, err := published(emu)
			return err
		})
		took := time.Since(start)
		c := emu.srv.Counters()
		seen := map[string]int{}
		for _, z := range emu.srv.Dump() {
			for _, rs := range z.RRSets {
				seen[rs.Name+" "+rs.Type] += len(rs.Rrdatas)
			}
		}
		for s := range services {
			for h := range perService {
				name := fmt.Sprintf("h%d-%d.example.com.", s, h)
				if seen[name+" A"] != 1 || seen["a-"+name+" TXT"] != 1 {
					t.Fatalf("%s: %d A, %d TXT", name, seen[name+" A"], seen["a-"+name+" TXT"])
				}
			}
		}
		if !zk.running() {
			t.Fatal("zonekeeper exited")
		}
		if c.Throttled == 0 {
			t.Fatalf("the emulator answered no 429 (calls %v): the test did not test throttling", c.Calls)
		}
		_, metrics, err := zk.get("/metrics")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`zonekeeper_provider_throttled_total{provider="google"} %d`, c.Throttled); !strings.Contains(metrics, want) {
			t.Errorf("want %s in the metrics:\n%s", want, tail(metrics, 2000))
		}
		calls := c.Total - c.Calls[googlednsemu.OpToken]
		t.Logf("zonekeeper converged in %v: %d API calls (%d answered 429), lower limit %d, ratio %.2f (answered calls %.2f); calls %v",
			took.Round(time.Second), calls, c.Throttled, lower, float64(calls)/float64(lower), float64(calls-c.Throttled)/float64(lower), c.Calls)
	})

	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run("external-dns-"+peer.Version, func(t *testing.T) {
			emu := newGoogleDiffEmulator(t, ca)
			throttle(emu)
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, peer.Binary, append(append(append([]string{}, googleThrottleFlags...), peer.Args...),
				"--kubeconfig="+e.kube.Kubeconfig, fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
			cmd.Env = append(withoutProxyEnv(os.Environ()), "HTTPS_PROXY="+emu.proxy.URL(), "SSL_CERT_FILE="+emu.caFile,
				"GOOGLE_APPLICATION_CREDENTIALS="+emu.edKey, "NO_PROXY=127.0.0.1,localhost")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			outcome := "did not converge in 150 s"
		poll:
			for {
				select {
				case err := <-exited:
					outcome = fmt.Sprintf("exited (%v) after %v", err, time.Since(start).Round(time.Second))
					break poll
				case <-time.After(time.Second):
					if _, err := published(emu); err == nil {
						outcome = fmt.Sprintf("converged in %v, still running", time.Since(start).Round(time.Second))
						cancel()
						<-exited
						break poll
					}
					if ctx.Err() != nil {
						<-exited
						break poll
					}
				}
			}
			c := emu.srv.Counters()
			n, _ := published(emu)
			calls := c.Total - c.Calls[googlednsemu.OpToken]
			t.Logf("external-dns %s: %s; %d of %d record sets; %d API calls (%d answered 429), lower limit %d; calls %v; errors logged: %d",
				peer.Version, outcome, n, want, calls, c.Throttled, lower, c.Calls, strings.Count(out.String(), "level=error"))
		})
	}
}
