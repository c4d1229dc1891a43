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
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The zone both tools write, and its fixed emulator id (the same after each wipe).
const (
	benchZone   = "example.com"
	benchZoneID = "ZSIDEBYSIDE"
)

// TestSideBySide is the harness of issue 15 item 5; `make bench-side-by-side` runs it (the settings
// are in settings.go). For each N it starts a fresh kube-apiserver with its etcd, loads N Ingresses,
// then runs each tool in turn against an emptied Route 53 emulator: until converged, through the idle
// window, through the changes, and stops it. It prints one table per N.
func TestSideBySide(t *testing.T) {
	s, err := settingsFrom(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	versions := map[string]string{}
	for _, tool := range s.Tools {
		switch tool {
		case "external-dns":
			bins[tool] = filepath.Join(testbed.BinDir(), "external-dns-"+s.ExternalDNSVersion)
			if _, err := os.Stat(bins[tool]); err != nil {
				t.Fatalf("external-dns %s: %v (hack/testbed.sh builds v0.21.0 and v0.23.0)", s.ExternalDNSVersion, err)
			}
			versions[tool] = s.ExternalDNSVersion
		case "zonekeeper":
			bins[tool] = s.Zonekeeper
			if bins[tool] == "" {
				bins[tool] = buildZonekeeper(t)
			}
			out, err := exec.Command(bins[tool], "version").Output()
			if err != nil {
				t.Fatalf("%s version: %v", bins[tool], err)
			}
			versions[tool] = strings.TrimPrefix(strings.TrimSpace(string(out)), "zonekeeper ")
		}
	}
	for _, server := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(testbed.BinDir(), server)); err != nil {
			t.Fatalf("%s is not in %s: run hack/testbed.sh", server, testbed.BinDir())
		}
	}
	header := machineHeader(s, versions)
	emit(t, s, header)

	for _, n := range s.Counts {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			table := sideBySide{N: n, Idle: s.Idle, Changes: s.Changes}
			kube := testbed.StartKubeAPIServer(t)
			client, err := fastClient(kube.Config)
			if err != nil {
				t.Fatal(err)
			}
			emu, err := startEmulator(benchZoneID, benchZone)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(emu.Close)
			start := time.Now()
			want, err := loadIngresses(context.Background(), client, n, benchZone, func(p string) { say("  loading: %s", p) })
			if err != nil {
				t.Fatalf("loading %d Ingresses: %v", n, err)
			}
			say("N=%d: %d Ingresses created with their status in %s", n, n, time.Since(start).Round(time.Millisecond))
			for round, tool := range s.Tools {
				res := measure(t, s, runSpec{
					tool: tool, bin: bins[tool], version: versions[tool], round: round,
					kubeconfig: kube.Kubeconfig, client: client, emu: emu, want: want,
				})
				table.Results = append(table.Results, res)
			}
			emit(t, s, table.markdown())
		})
	}
}

// runSpec is one tool's turn at one N.
type runSpec struct {
	tool, bin, version string
	// round numbers the turns, so that each turn's changes use addresses no earlier turn used.
	round      int
	kubeconfig string
	client     kubernetes.Interface
	emu        *watchedEmulator
	// want is host → address, updated as the changes are made.
	want map[string]string
}

// measure runs one tool through converge, the idle window and the changes, and stops it.
func measure(t *testing.T, s settings, r runSpec) (res toolResult) {
	ctx := context.Background()
	n := len(r.want)
	res = toolResult{Tool: r.tool, Version: r.version}
	if err := r.emu.wipe(); err != nil {
		t.Fatal(err)
	}
	load := sampleLoad()
	defer func() { res.LoadMean, res.LoadMax = load.stop() }()

	say("N=%d %s: starting", n, r.tool)
	start := time.Now()
	p := startTool(t, r.tool, r.bin, toolArgs(t, r.tool, r.kubeconfig), toolEnv(r.emu.URL()))
	at, calls, err := r.emu.await(ctx, s.ConvergeTimeout, p.alive, allAddresses(r.want))
	if err != nil {
		t.Fatalf("%s at N=%d did not converge: %v\nthe end of its log:\n%s", r.tool, n, err, p.logTail(30))
	}
	res.Converge, res.ConvergeCalls = at.Sub(start), calls
	res.RSSConverged = mustRead(t, r.tool, residentBytes, p.pid())
	res.AnonConverged = mustRead(t, r.tool, anonymousBytes, p.pid())
	res.Sets = len(r.emu.sets())
	say("N=%d %s: converged in %s, %d calls, RSS %s (anonymous %s)", n, r.tool, human(res.Converge), sumCalls(calls), megabytes(res.RSSConverged), megabytes(res.AnonConverged))

	sleepAlive(t, p, s.Settle)
	cpu0, calls0 := mustRead(t, r.tool, cpuTime, p.pid()), r.emu.calls()
	say("N=%d %s: idle window of %s", n, r.tool, s.Idle)
	sleepAlive(t, p, s.Idle)
	res.IdleCPU, res.IdleCalls = mustRead(t, r.tool, cpuTime, p.pid())-cpu0, diffCalls(r.emu.calls(), calls0)
	res.RSSIdle = mustRead(t, r.tool, residentBytes, p.pid())
	res.AnonIdle = mustRead(t, r.tool, anonymousBytes, p.pid())

	say("N=%d %s: %d changes", n, r.tool, s.Changes)
	calls0 = r.emu.calls()
	for k := 0; k < s.Changes; k++ {
		i := k * (n / s.Changes)
		host, ip := ingressHost(i, benchZone), changeIP(r.round, k)
		t0 := time.Now()
		if err := setIngressIP(ctx, r.client, i, ip); err != nil {
			t.Fatal(err)
		}
		at, _, err := r.emu.await(ctx, s.ChangeTimeout, p.alive, address(host, ip))
		if err != nil {
			t.Fatalf("%s at N=%d, change %d of %d: %v\nthe end of its log:\n%s", r.tool, n, k+1, s.Changes, err, p.logTail(30))
		}
		if at.Before(t0) {
			t.Fatalf("%s at N=%d, change %d: the emulator holds %s for %s, but no change call returned after the Ingress was patched", r.tool, n, k+1, ip, host)
		}
		r.want[host] = ip
		res.Latencies = append(res.Latencies, at.Sub(t0))
		sleepAlive(t, p, s.ChangeGap)
	}
	res.ChangeCalls = diffCalls(r.emu.calls(), calls0)
	p.stop()
	say("N=%d %s: done (event to answer median %s)", n, r.tool, human(percentile(res.Latencies, 50)))
	return res
}

// toolArgs are each tool's defaults but for what this setup needs: the Ingress source, the aws
// provider, the cluster's kubeconfig, a free metrics port, --policy=sync (external-dns v0.23 refuses
// to start without an explicit policy; sync is both tools' old default), and for external-dns --events.
func toolArgs(t *testing.T, tool, kubeconfig string) []string {
	args := []string{"--source=ingress", "--provider=aws", "--policy=sync", "--kubeconfig=" + kubeconfig,
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t))}
	if tool == "external-dns" {
		args = append(args, "--events")
	}
	return args
}

// toolEnv is the harness's environment with every AWS_ variable replaced: static keys of the
// emulator's account, and both SDKs pointed at the emulator.
func toolEnv(url string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"AWS_ACCESS_KEY_ID=AKIDSIDEBYSIDE", "AWS_SECRET_ACCESS_KEY=side-by-side-secret", "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/nonexistent/aws-config",
		"AWS_SHARED_CREDENTIALS_FILE=/nonexistent/aws-credentials",
		"AWS_ENDPOINT_URL_ROUTE_53="+url, "AWS_ENDPOINT_URL_STS="+url)
}

// changeIP is the address of change k in turn round: 172.(16+round).x.y, never a loaded address.
func changeIP(round, k int) string {
	return fmt.Sprintf("172.%d.%d.%d", 16+round, k/250, k%250+1)
}

func diffCalls(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for op, v := range after {
		if d := v - before[op]; d != 0 {
			out[op] = d
		}
	}
	return out
}

func mustRead[T any](t *testing.T, tool string, read func(int) (T, error), pid int) T {
	t.Helper()
	v, err := read(pid)
	if err != nil {
		t.Fatalf("%s (pid %d): %v", tool, pid, err)
	}
	return v
}

// sleepAlive waits d, failing the test as soon as the tool exits.
func sleepAlive(t *testing.T, p *toolProcess, d time.Duration) {
	t.Helper()
	end := time.Now().Add(d)
	for {
		if err := p.alive(); err != nil {
			t.Fatalf("%v; the end of its log:\n%s", err, p.logTail(30))
		}
		left := time.Until(end)
		if left <= 0 {
			return
		}
		time.Sleep(min(left, 2*time.Second))
	}
}

// loadSampler reads the one-minute load average every 5 s until stopped.
type loadSampler struct {
	mu      sync.Mutex
	samples []float64
	quit    chan struct{}
	done    chan struct{}
}

func sampleLoad() *loadSampler {
	l := &loadSampler{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			if v, err := loadAverage1(); err == nil {
				l.mu.Lock()
				l.samples = append(l.samples, v)
				l.mu.Unlock()
			}
			select {
			case <-l.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return l
}

// stop ends the sampling and returns the mean and the maximum.
func (l *loadSampler) stop() (mean, top float64) {
	close(l.quit)
	<-l.done
	for _, v := range l.samples {
		mean += v
		top = max(top, v)
	}
	return mean / float64(len(l.samples)), top
}

// buildZonekeeper builds ./cmd/zonekeeper as `make build` does, stamped with the tree's git describe.
func buildZonekeeper(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	version := "dev"
	if out, err := exec.Command("git", "-C", root, "describe", "--tags", "--always", "--dirty").Output(); err == nil {
		version = strings.TrimSpace(string(out))
	}
	bin := filepath.Join(t.TempDir(), "zonekeeper")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X github.com/zonekeeper/zonekeeper/internal/app.Version="+version, "-o", bin, "./cmd/zonekeeper")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building zonekeeper: %v\n%s", err, out)
	}
	return bin
}

// machineHeader says when, where and with what the tables were taken.
func machineHeader(s settings, versions map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Side by side, %s UTC\n\n", time.Now().UTC().Format("2006-01-02 15:04"))
	b.WriteString(machineLine())
	for _, tool := range s.Tools {
		fmt.Fprintf(&b, "- %s %s\n", tool, versions[tool])
	}
	b.WriteString(serverLines())
	fmt.Fprintf(&b, "- Route 53 emulator (internal/route53emu) in the harness process: no rate limit, changes in sync at once\n")
	fmt.Fprintf(&b, "- settle %s, idle window %s, %d changes %s apart, harness built with %s\n", s.Settle, s.Idle, s.Changes, s.ChangeGap, runtime.Version())
	return b.String()
}

// machineLine says what the machine is and how loaded it was, as a list item.
func machineLine() string {
	var b strings.Builder
	mem := "?"
	if m, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(m), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				mem = strings.TrimSpace(v)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "- machine: %d CPUs (runtime.NumCPU), MemTotal %s, %s/%s; load average at start: %s\n",
		runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH, strings.Join(strings.Fields(string(load))[:3], " "))
	return b.String()
}

// serverLines name the kube-apiserver and etcd binaries of the testbed, one list item each.
func serverLines() string {
	var b strings.Builder
	for _, server := range []string{"kube-apiserver", "etcd"} {
		name := server
		if p, err := filepath.EvalSymlinks(filepath.Join(testbed.BinDir(), server)); err == nil {
			name = filepath.Base(p)
			if out, err := exec.Command(p, "--version").Output(); err == nil && !strings.Contains(name, "-v") {
				name += " (" + strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]) + ")"
			}
		}
		fmt.Fprintf(&b, "- %s\n", name)
	}
	return b.String()
}

// say prints a progress line at once (t.Log would hold it until the subtest ends).
func say(format string, args ...any) {
	fmt.Printf("%s %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// emit prints a block and appends it to SBS_OUT when set.
func emit(t *testing.T, s settings, block string) {
	fmt.Println()
	fmt.Println(block)
	if s.Out == "" {
		return
	}
	f, err := os.OpenFile(s.Out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("SBS_OUT: %v", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, block); err != nil {
		t.Fatalf("SBS_OUT %s: %v", s.Out, err)
	}
}
