package testbed

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DNSPerf configures one run of dnsperf (the DNS load generator from the Debian package) against a
// server on loopback.
type DNSPerf struct {
	// Addr is the server, 127.0.0.1:PORT.
	Addr string
	// Queries are the lines of the query file ("www.example.com A").
	Queries []string
	// Duration of the run (-l); default 10 s.
	Duration time.Duration
	// MaxQPS caps the query rate (-Q); 0 sends as fast as the server answers.
	MaxQPS int
	// Outstanding is the number of queries in flight (-q); default dnsperf's 100.
	Outstanding int
	// Clients (-c) and Threads (-T); default 1 each.
	Clients, Threads int
	// Latencies asks dnsperf for every query's latency (-v) to compute percentiles. It costs dnsperf
	// CPU, so measure throughput and percentiles in separate runs.
	Latencies bool
}

// DNSPerfResult is what dnsperf reported.
type DNSPerfResult struct {
	Sent, Completed, Lost  int
	QPS                    float64
	AvgLatency, MaxLatency time.Duration
	// Percentiles of the per-query latencies (only with DNSPerf.Latencies).
	P50, P90, P99, P999 time.Duration
	// Rcodes counts the response codes ("NOERROR": 123).
	Rcodes map[string]int
	// Output is dnsperf's report (without the per-query lines).
	Output string
}

func (r DNSPerfResult) String() string {
	s := fmt.Sprintf("%.0f qps, sent %d, lost %d, avg %v, max %v", r.QPS, r.Sent, r.Lost, r.AvgLatency, r.MaxLatency)
	if r.P50 > 0 {
		s += fmt.Sprintf(", p50 %v, p90 %v, p99 %v, p99.9 %v", r.P50, r.P90, r.P99, r.P999)
	}
	return s
}

// Run runs dnsperf and parses its report; the test fails if dnsperf does not run or reports nothing.
func (d DNSPerf) Run(t testing.TB) DNSPerfResult {
	t.Helper()
	bin := Binary(t, "dnsperf")
	host, port, err := net.SplitHostPort(d.Addr)
	if err != nil {
		t.Fatalf("dnsperf: address %q: %v", d.Addr, err)
	}
	qfile := filepath.Join(t.TempDir(), "queries")
	if err := os.WriteFile(qfile, []byte(strings.Join(d.Queries, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dur := d.Duration
	if dur <= 0 {
		dur = 10 * time.Second
	}
	args := []string{"-s", host, "-p", port, "-d", qfile, "-l", strconv.Itoa(int(math.Ceil(dur.Seconds())))}
	if d.MaxQPS > 0 {
		args = append(args, "-Q", strconv.Itoa(d.MaxQPS))
	}
	if d.Outstanding > 0 {
		args = append(args, "-q", strconv.Itoa(d.Outstanding))
	}
	if d.Clients > 0 {
		args = append(args, "-c", strconv.Itoa(d.Clients))
	}
	if d.Threads > 0 {
		args = append(args, "-T", strconv.Itoa(d.Threads))
	}
	if d.Latencies {
		args = append(args, "-v")
	}
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr LogBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("dnsperf: %v", err)
	}
	var report strings.Builder
	var lat []time.Duration
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		// Per-query lines: "> NOERROR www.example.com A 0.000123".
		if strings.HasPrefix(line, "> ") {
			f := strings.Fields(line)
			if s, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
				lat = append(lat, time.Duration(s*float64(time.Second)))
			}
			continue
		}
		report.WriteString(line)
		report.WriteByte('\n')
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dnsperf %s: %v\n%s%s", strings.Join(args, " "), err, report.String(), stderr.String())
	}
	r, err := ParseDNSPerf(report.String())
	if err != nil {
		t.Fatalf("dnsperf: %v\n%s%s", err, report.String(), stderr.String())
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		r.P50, r.P90, r.P99, r.P999 = pct(0.50), pct(0.90), pct(0.99), pct(0.999)
	}
	return r
}

var (
	perfSent      = regexp.MustCompile(`Queries sent:\s+(\d+)`)
	perfCompleted = regexp.MustCompile(`Queries completed:\s+(\d+)`)
	perfLost      = regexp.MustCompile(`Queries lost:\s+(\d+)`)
	perfQPS       = regexp.MustCompile(`Queries per second:\s+([0-9.]+)`)
	perfLatency   = regexp.MustCompile(`Average Latency \(s\):\s+([0-9.]+) \(min [0-9.]+, max ([0-9.]+)\)`)
	perfRcodes    = regexp.MustCompile(`Response codes:\s+(.*)`)
	perfRcode     = regexp.MustCompile(`([A-Z]+) (\d+) \(`)
)

// ParseDNSPerf reads the statistics block of dnsperf 2.x.
func ParseDNSPerf(out string) (DNSPerfResult, error) {
	r := DNSPerfResult{Output: out, Rcodes: map[string]int{}}
	ints := []struct {
		re  *regexp.Regexp
		dst *int
	}{{perfSent, &r.Sent}, {perfCompleted, &r.Completed}, {perfLost, &r.Lost}}
	for _, x := range ints {
		m := x.re.FindStringSubmatch(out)
		if m == nil {
			return r, fmt.Errorf("no %q in the report", x.re.String())
		}
		*x.dst, _ = strconv.Atoi(m[1])
	}
	m := perfQPS.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no queries-per-second figure in the report")
	}
	r.QPS, _ = strconv.ParseFloat(m[1], 64)
	if m := perfLatency.FindStringSubmatch(out); m != nil {
		avg, _ := strconv.ParseFloat(m[1], 64)
		mx, _ := strconv.ParseFloat(m[2], 64)
		r.AvgLatency = time.Duration(avg * float64(time.Second))
		r.MaxLatency = time.Duration(mx * float64(time.Second))
	}
	if m := perfRcodes.FindStringSubmatch(out); m != nil {
		for _, rc := range perfRcode.FindAllStringSubmatch(m[1], -1) {
			r.Rcodes[rc[1]], _ = strconv.Atoi(rc[2])
		}
	}
	return r, nil
}
