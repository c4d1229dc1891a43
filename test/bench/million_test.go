//go:build sidebyside

package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// TestMillion is issue 15's "1,000,000 endpoints in one process", end to end: `make bench-million`
// runs it (settings in million_settings.go). It loads OBJECTS Ingresses of HOSTS host rules each
// into a real kube-apiserver, starts zonekeeper with its defaults but for the built-in DNS server
// as the provider, and measures, by asking that server over UDP as a resolver would: the time until
// every name is answered, memory and CPU then and after an idle window, and event to answer over
// status-IP changes. zonekeeper alone: the side-by-side harness covers external-dns.
func TestMillion(t *testing.T) {
	s, err := millionSettingsFrom(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	bin := s.Zonekeeper
	if bin == "" {
		bin = buildZonekeeper(t)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "zonekeeper ")
	for _, server := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(testbed.BinDir(), server)); err != nil {
			t.Fatalf("%s is not in %s: run hack/testbed.sh", server, testbed.BinDir())
		}
	}
	header := fmt.Sprintf("One million, %s UTC\n\n", time.Now().UTC().Format("2006-01-02 15:04")) + machineLine() +
		fmt.Sprintf("- zonekeeper %s\n", version) + serverLines() +
		fmt.Sprintf("- %d changes %s apart, idle window %s, harness built with %s\n", s.Changes, s.ChangeGap, s.Idle, runtime.Version())
	emitMillion(t, s, header)

	res := millionResult{Objects: s.Objects, Hosts: s.Hosts, Args: s.Args, Idle: s.Idle, LoadStart: loadAverages()}
	wholeRun := sampleLoad()
	kube := testbed.StartKubeAPIServer(t)
	client, err := fastClient(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	if err := loadManyHostIngresses(ctx, client, s.Objects, s.Hosts, benchZone, func(p string) { say("  loading: %s", p) }); err != nil {
		t.Fatalf("loading %d Ingresses of %d hosts: %v", s.Objects, s.Hosts, err)
	}
	res.Load = time.Since(start)
	say("%d Ingresses × %d hosts created with their status in %s", s.Objects, s.Hosts, human(res.Load))

	dnsAddr := fmt.Sprintf("127.0.0.1:%d", testbed.FreePort(t))
	metricsURL := fmt.Sprintf("http://127.0.0.1:%d/metrics", testbed.FreePort(t))
	args := []string{"--source=ingress", "--provider=builtin", "--builtin-listen=" + dnsAddr,
		"--builtin-zone=" + benchZone, "--kubeconfig=" + kube.Kubeconfig,
		"--metrics-address=" + strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")}
	args = append(args, s.Args...)
	say("starting zonekeeper %s", strings.Join(args, " "))
	converging := sampleLoad()
	start = time.Now()
	p := startTool(t, "zonekeeper", bin, args, os.Environ())
	probe := newDNSProbe(dnsAddr)
	watcher := watchSerial(probe, benchZone, 50*time.Millisecond, func(seen *serialSeen) {
		seen.CPU, _ = cpuTime(p.pid())
		seen.RSS, _ = residentBytes(p.pid())
		seen.Anon, _ = anonymousBytes(p.pid())
	})
	defer watcher.stop()
	n := s.Endpoints()
	expect := func(k int) (string, string) {
		return millionHost(k/s.Hosts, k%s.Hosts, benchZone), ingressIP(k / s.Hosts)
	}
	conv, err := awaitAllAnswered(probe, watcher, n, expect, s.ConvergeTimeout, p.alive, func(m string) { say("  converging: %s", m) })
	res.ConvergeLoadMean, res.ConvergeLoadMax = converging.stop()
	if err != nil {
		t.Fatalf("zonekeeper did not converge on %d names: %v\nserials seen: %d\nthe end of its log:\n%s", n, err, len(watcher.history()), p.logTail(30))
	}
	history := watcher.history()
	res.Serving = history[0].At.Sub(start)
	for _, h := range history[1:] {
		if h.Serial <= conv.At.Serial {
			res.Batches++
		}
	}
	res.Converge, res.ConvergeExact = conv.At.At.Sub(start), conv.Exact
	res.ConvergeCPU, res.RSSConverged, res.AnonConverged = conv.At.CPU, conv.At.RSS, conv.At.Anon
	say("converged in %s (exact %v, %d batches, %d checks, %d questions); CPU %s, RSS %s (anonymous %s)",
		human(res.Converge), conv.Exact, res.Batches, conv.Checks, conv.Questions, human(res.ConvergeCPU),
		megabytes(res.RSSConverged), megabytes(res.AnonConverged))

	say("idle window of %s", s.Idle)
	before, err := scrapeMetrics(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	cpu0 := mustRead(t, "zonekeeper", cpuTime, p.pid())
	sleepAlive(t, p, s.Idle)
	res.IdleCPU = mustRead(t, "zonekeeper", cpuTime, p.pid()) - cpu0
	res.RSSIdle = mustRead(t, "zonekeeper", residentBytes, p.pid())
	res.AnonIdle = mustRead(t, "zonekeeper", anonymousBytes, p.pid())
	after, err := scrapeMetrics(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	res.LiveIdle = liveHeap(after)
	res.IdleRecordsMean, res.IdleRecords = histogramMean(before, after, "zonekeeper_provider_call_duration_seconds", `operation="records"`)
	say("idle: %s CPU, RSS %s (anonymous %s), %d listings", human(res.IdleCPU), megabytes(res.RSSIdle), megabytes(res.AnonIdle), res.IdleRecords)

	say("%d changes", s.Changes)
	conn, err := probe.dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	before = after
	for k := 0; k < s.Changes; k++ {
		i := k * (s.Objects / s.Changes)
		host, ip := millionHost(i, k%s.Hosts, benchZone), changeIP(0, k)
		t0 := time.Now()
		if err := setIngressIP(ctx, client, i, ip); err != nil {
			t.Fatal(err)
		}
		at, err := probe.awaitAddress(conn, host, ip, s.ChangeTimeout, p.alive)
		if err != nil {
			t.Fatalf("change %d of %d (Ingress %s): %v\nthe end of its log:\n%s", k+1, s.Changes, ingressName(i), err, p.logTail(30))
		}
		res.Latencies = append(res.Latencies, at.Sub(t0))
		sleepAlive(t, p, s.ChangeGap)
	}
	if after, err = scrapeMetrics(metricsURL); err != nil {
		t.Fatal(err)
	}
	res.ApplyMean, res.ApplyCalls = histogramMean(before, after, "zonekeeper_provider_call_duration_seconds", `operation="apply_changes"`)
	res.LiveAfter = liveHeap(after)
	res.EventReconcileMean, _ = histogramMean(before, after, "zonekeeper_sync_duration_seconds", `trigger="event"`)
	res.RSSAfter = mustRead(t, "zonekeeper", residentBytes, p.pid())
	res.AnonAfter = mustRead(t, "zonekeeper", anonymousBytes, p.pid())
	res.PeakRSS = mustRead(t, "zonekeeper", peakResidentBytes, p.pid())
	p.stop()
	say("zonekeeper's log but the per-record lines, last 40:\n%s", logDigest(p.logPath, 40))
	res.LoadMean, res.LoadMax = wholeRun.stop()
	say("event to answer median %s, p95 %s; each, in order: %v", human(percentile(res.Latencies, 50)), human(percentile(res.Latencies, 95)), roundAll(res.Latencies))
	emitMillion(t, s, res.markdown())
}

// loadAverages is /proc/loadavg's 1, 5 and 15-minute figures.
func loadAverages() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// emitMillion prints a block and appends it to MIL_OUT when set.
func emitMillion(t *testing.T, s millionSettings, block string) {
	emit(t, settings{Out: s.Out}, block)
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// logDigest is the last n lines of a log leaving out the per-record "Desired change" lines (a
// million of them at converge), so what the controller did between them shows.
func logDigest(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if !strings.Contains(l, "Desired change") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep[max(0, len(keep)-n):], "\n")
}
