package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

// azureThrottleLimit is the emulator's limit for the first 60 s, per subscription (429 with
// Retry-After: 1 above it).
const azureThrottleLimit = 50

// 2,000 hostnames (the Cloudflare throttle scenario's Services) published to Azure DNS while the
// emulator allows 50 requests per second for 60 s: zonekeeper converges with every record set present
// exactly once (2,000 A and their 2,000 registry TXT), never exits; its calls are compared with the
// lower limit (one PUT per record set, the Azure API has no batch, plus the listings). The real
// external-dns (each built version, as a deployment runs it, for at most 150 s) gets the same scenario
// on its own emulator, and its outcome and calls are reported beside.
func TestAzureTwoThousandHostnamesThrottled(t *testing.T) {
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
	lower := 2*services*perService + 1 + 1 // PUTs, one zone list, one record-set page
	throttle := func(emu *azureDiffEmulator) {
		if err := emu.srv.SetRateLimit(azureThrottleLimit, azureThrottleLimit, 1); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(60*time.Second, func() { _ = emu.srv.SetRateLimit(0, 0, 0) })
	}
	published := func(emu *azureDiffEmulator) (int, error) {
		n := 0
		for _, z := range emu.srv.Dump() {
			n += len(z.RecordSets)
		}
		if n != want {
			return n, fmt.Errorf("%d record sets", n)
		}
		return n, nil
	}
	apiCalls := func(c azurednsemu.Counters) int {
		return c.Total - c.Calls[azurednsemu.OpAADInstanceDiscovery] - c.Calls[azurednsemu.OpAADOpenIDConfiguration] - c.Calls[azurednsemu.OpAADToken]
	}
	flags := func(emu *azureDiffEmulator) []string {
		return []string{"--provider=azure", "--azure-config-file=" + emu.cfgFile, "--source=service", "--txt-owner-id=e2e",
			"--policy=sync", "--domain-filter=example.com", "--interval=1m"}
	}

	t.Run("zonekeeper", func(t *testing.T) {
		emu := newAzureDiffEmulator(t, ca, false, azurednsemu.DefaultPageSize)
		throttle(emu)
		start := time.Now()
		// By default zonekeeper paces its writes at ARM's documented limit (a burst of 200, then 10/s),
		// so 4,000 PUTs take about 400 s (docs/benchmarks.md, Azure DNS). This emulated account allows
		// 50 requests/s, and a user whose account allows more says so with --azure-writes-per-second.
		zk := e.start(t, append(flags(emu), "--tls-ca="+emu.caFile, fmt.Sprintf("--azure-writes-per-second=%d", azureThrottleLimit))...)
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
			for _, rs := range z.RecordSets {
				seen[rs.Name+" "+rs.Type] += len(rs.Records)
			}
		}
		for s := range services {
			for h := range perService {
				name := fmt.Sprintf("h%d-%d", s, h)
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
		calls := apiCalls(c)
		t.Logf("zonekeeper converged in %v: %d API calls (%d answered 429), lower limit %d, ratio %.3f (answered calls %.3f); calls %v",
			took.Round(time.Second), calls, c.Throttled, lower, float64(calls)/float64(lower), float64(calls-c.Throttled)/float64(lower), c.Calls)
	})

	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run("external-dns-"+peer.Version, func(t *testing.T) {
			emu := newAzureDiffEmulator(t, ca, false, azurednsemu.DefaultPageSize)
			throttle(emu)
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, peer.Binary, append(append(flags(emu), peer.Args...),
				"--kubeconfig="+e.kube.Kubeconfig, fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
			cmd.Env = append(withoutProxyEnv(os.Environ()), "HTTPS_PROXY="+emu.proxy.URL(), "SSL_CERT_FILE="+emu.caFile)
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
			t.Logf("external-dns %s: %s; %d of %d record sets; %d API calls (%d answered 429), lower limit %d; calls %v; errors logged: %d",
				peer.Version, outcome, n, want, apiCalls(c), c.Throttled, lower, c.Calls, strings.Count(out.String(), "level=error"))
		})
	}
}
