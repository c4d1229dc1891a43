package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// peerThrottleWindow is how long each external-dns runs: the 60 s of throttling, then one more
// default interval (1m) and a margin, so a peer that survives the throttling has a full reconcile
// without it.
const peerThrottleWindow = 150 * time.Second

// TestCloudflareThrottledExternalDNS runs the real external-dns (every built version, in parallel,
// each against its own emulator) on the scenario of TestCloudflareTwoThousandHostnamesThrottled: the
// same 2,000 hostnames and flags, the emulator at 4 requests per second (burst 4) for the first 60 s.
// Each runs as a deployment would (no --once, default --interval=1m, --events), with the default
// --batch-change-interval=1s and, as zonekeeper's "eager" case, with 0s, for at most
// peerThrottleWindow and the test reports what it did: exited (code and last log lines), stalled
// (running, not converged at the end) or converged (every A and registry TXT present exactly once),
// with its calls (total, 429s, per operation) from the emulator's counters. external-dns behaving badly
// is the finding, not a failure; the test fails only when the scenario tested nothing: a peer that
// never reached the emulator, or no 429 at all.
func TestCloudflareThrottledExternalDNS(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 hostnames")
	}
	peers := testbed.ExternalDNSPeers(t)
	e := throttleScenario(t)
	var mu sync.Mutex
	throttled := 0
	t.Run("peers", func(t *testing.T) {
		for _, peer := range peers {
			for _, set := range []struct {
				name  string
				flags []string
			}{
				{"defaults", nil},
				{"eager", []string{"--batch-change-interval=0s"}},
			} {
				t.Run(peer.Version+"/"+set.name, func(t *testing.T) {
					t.Parallel()
					n := runThrottledPeer(t, e, peer, set.flags...)
					mu.Lock()
					throttled += n
					mu.Unlock()
				})
			}
		}
	})
	if throttled == 0 && !t.Failed() {
		t.Fatal("no external-dns was answered 429: the emulator never throttled, the scenario tested nothing")
	}
}

// peerOutcome is what one external-dns did in the window.
type peerOutcome struct {
	what     string // "converged", "exited", "stalled"
	at       time.Duration
	exitCode int
}

// runThrottledPeer runs one external-dns against a fresh throttled emulator, logs what it did and
// returns how many of its calls were answered 429.
func runThrottledPeer(t *testing.T, e *env, peer testbed.ExternalDNSPeer, flags ...string) int {
	const perService, services = 100, 20
	const want = 2 * perService * services
	emu := cloudflareemu.New(cloudflareemu.Options{})
	hs := httptest.NewServer(emu)
	t.Cleanup(hs.Close)
	if _, err := emu.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com"}}}); err != nil {
		t.Fatal(err)
	}
	if err := emu.SetRateLimitFor(4, 4, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := append([]string{"--provider=cloudflare", "--source=service", "--registry=txt", "--txt-owner-id=e2e",
		"--policy=sync", "--domain-filter=example.com", "--interval=1m", "--events", "--kubeconfig=" + e.kube.Kubeconfig,
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t))}, append(flags, peer.Args...)...)
	cmd := exec.CommandContext(ctx, peer.Binary, args...)
	cmd.Env = append(os.Environ(), "CLOUDFLARE_BASE_URL="+hs.URL+cloudflareemu.APIPrefix, "CF_API_TOKEN=x")
	log := &testbed.LogBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start external-dns %s: %v", peer.Version, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var out peerOutcome
	var timeline []string
	lastCount, lastChange := 0, time.Duration(0)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	sample := time.Duration(0)
watch:
	for {
		select {
		case err := <-done:
			out = peerOutcome{what: "exited", at: time.Since(start), exitCode: exitCode(err)}
			break watch
		case <-tick.C:
		}
		now := time.Since(start)
		recs := emu.Dump()[0].Records
		if len(recs) != lastCount {
			lastCount, lastChange = len(recs), now
		}
		if now-sample >= 10*time.Second {
			sample = now
			c := emu.Counters()
			timeline = append(timeline, fmt.Sprintf("%3ds: %d records, %d calls, %d 429", int(now.Seconds()), len(recs), c.Total, c.Throttled))
		}
		if len(recs) == want && throttleRecordsExact(recs) == nil {
			out = peerOutcome{what: "converged", at: now}
			break watch
		}
		if now >= peerThrottleWindow {
			out = peerOutcome{what: "stalled", at: now}
			break watch
		}
	}
	if out.what != "exited" {
		cancel()
		<-done
	}
	c := emu.Counters()
	if c.Total == 0 {
		t.Fatalf("external-dns %s made no call to the emulator (%s at %v): the harness did not reach it\n%s",
			peer.Version, out.what, out.at.Round(time.Second), tail(log.String(), 4000))
	}
	recs := emu.Dump()[0].Records
	switch out.what {
	case "converged":
		t.Logf("external-dns %s CONVERGED in %v (throttling for the first 60 s): %d records, each exactly once",
			peer.Version, out.at.Round(time.Second), len(recs))
	case "exited":
		t.Logf("external-dns %s EXITED with code %d after %v, %d of %d records in the zone (%v); last log lines:\n%s",
			peer.Version, out.exitCode, out.at.Round(time.Second), len(recs), want, throttleRecordsExact(recs), lastLines(log.String(), 8))
	default:
		t.Logf("external-dns %s STALLED: running, not converged after %v: %d of %d records (%v), last change at %v; last log lines:\n%s",
			peer.Version, out.at.Round(time.Second), len(recs), want, throttleRecordsExact(recs), lastChange.Round(time.Second), lastLines(log.String(), 8))
	}
	var errLines []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "level=error") || strings.Contains(l, "level=fatal") {
			errLines = append(errLines, l)
		}
	}
	t.Logf("external-dns %s logged %d error lines%s", peer.Version, len(errLines), firstLine(errLines))
	t.Logf("external-dns %s calls: %d total, %d answered 429; per operation: %s", peer.Version, c.Total, c.Throttled, perOperation(c))
	t.Logf("external-dns %s timeline:\n%s", peer.Version, strings.Join(timeline, "\n"))
	return c.Throttled
}

// throttleRecordsExact checks that recs are the 2,000 A records of throttleScenario and their registry
// TXT, each exactly once.
func throttleRecordsExact(recs []cloudflareemu.RecordDump) error {
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Name+" "+r.Type]++
	}
	missing, dup := 0, 0
	for s := range 20 {
		for h := range 100 {
			name := fmt.Sprintf("h%d-%d.example.com", s, h)
			for _, k := range []string{name + " A", "a-" + name + " TXT"} {
				switch n := seen[k]; {
				case n == 0:
					missing++
				case n > 1:
					dup++
				}
			}
		}
	}
	if missing+dup > 0 || len(recs) != 4000 {
		return fmt.Errorf("%d missing, %d duplicated, %d records in all", missing, dup, len(recs))
	}
	return nil
}

// perOperation renders the calls per operation with their 429s: "dns_records.new=120 (429: 30), …".
func perOperation(c cloudflareemu.Counters) string {
	ops := make([]string, 0, len(c.Calls))
	for op := range c.Calls {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = fmt.Sprintf("%s=%d", op, c.Calls[op])
		if n := c.Errors[op+":10000"]; n > 0 {
			parts[i] += fmt.Sprintf(" (429: %d)", n)
		}
	}
	return strings.Join(parts, ", ")
}

// exitCode is the process's exit status (-1 when it did not exit normally).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// firstLine renders the first of lines as ", the first: …", or nothing.
func firstLine(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return ", the first: " + lines[0]
}
