package e2e

import (
	"bufio"
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// metricSum adds the samples of a metric family whose labels contain every one of labels.
func metricSum(body, name string, labels ...string) float64 {
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		fields := strings.Fields(line)
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); ok && err == nil {
			sum += v
		}
	}
	return sum
}

// Issue 11, fault suite: PowerDNS goes away twice while Ingresses are created, changed and deleted:
// first killed for 60 s (connections refused), then paused for 30 s (SIGSTOP: connections hang). The
// controller never exits, retries with backoff (calls counted), and once PowerDNS is back every change
// made meanwhile is in the zone, the record it does not own is untouched, and the process goes idle
// (no reconcile and no provider call in a quiet period).
func TestPowerDNSOutages(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	pd := testbed.StartPowerDNS(t, "example.com")
	e := &env{kube: kube, client: kube.Client(t)}
	seedPowerDNS(t, pd, "manual.example.com.", "A", "10.8.8.8")
	first := e.createIngress(t, ingress("first", "default", nil, "first.example.com"), "10.40.0.1")
	doomed := e.createIngress(t, ingress("doomed", "default", nil, "doomed.example.com"), "10.40.0.2")

	t.Setenv("EXTERNAL_DNS_PDNS_API_KEY", pd.APIKey)
	z := e.start(t, "--source=ingress", "--provider=pdns", "--pdns-server="+pd.APIURL,
		"--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	expectPowerDNS(t, pd, converge, "first.example.com", dns.TypeA, "10.40.0.1")
	expectPowerDNS(t, pd, converge, "doomed.example.com", dns.TypeA, "10.40.0.2")

	pdnsCalls := providerCalls(t, z, "pdns")
	outage := func(name string, d time.Duration, down, up func(), mutate func(i int)) {
		t.Helper()
		runOutage(t, z, pdnsCalls, name, d, down, up, mutate)
	}

	// Killed: connections refused.
	outage("PowerDNS killed", 60*time.Second, pd.Stop, func() {
		if err := pd.Start(); err != nil {
			t.Fatal(err)
		}
	}, func(i int) {
		switch i {
		case 0:
			e.createIngress(t, ingress("second", "default", nil, "second.example.com"), "10.40.0.3")
			first = e.setIngressIP(t, first, "10.40.1.1")
		case 1:
			if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), doomed.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	})
	start := time.Now()
	expectPowerDNS(t, pd, 90*time.Second, "second.example.com", dns.TypeA, "10.40.0.3")
	expectPowerDNS(t, pd, 10*time.Second, "first.example.com", dns.TypeA, "10.40.1.1")
	expectPowerDNS(t, pd, 10*time.Second, "doomed.example.com", dns.TypeA)
	expectPowerDNS(t, pd, 10*time.Second, "a-doomed.example.com", dns.TypeTXT)
	t.Logf("converged %s after PowerDNS came back", time.Since(start).Round(100*time.Millisecond))

	// Paused: connections hang until the client's timeout.
	outage("PowerDNS paused", 30*time.Second, func() { pd.Pause(t) }, func() { pd.Resume(t) }, func(i int) {
		if i == 0 {
			e.createIngress(t, ingress("third", "default", nil, "third.example.com"), "10.40.0.4")
		} else {
			first = e.setIngressIP(t, first, "10.40.2.1")
		}
	})
	start = time.Now()
	expectPowerDNS(t, pd, 90*time.Second, "third.example.com", dns.TypeA, "10.40.0.4")
	expectPowerDNS(t, pd, 10*time.Second, "first.example.com", dns.TypeA, "10.40.2.1")
	t.Logf("converged %s after PowerDNS resumed", time.Since(start).Round(100*time.Millisecond))

	// Nothing lost, nothing foreign touched.
	stored := zoneRRsets(t, pd)
	for name, want := range map[string]string{
		"manual.example.com. A":    "[10.8.8.8]",
		"first.example.com. A":     "[10.40.2.1]",
		"second.example.com. A":    "[10.40.0.3]",
		"third.example.com. A":     "[10.40.0.4]",
		"a-first.example.com. TXT": "[" + ownership("e2e", "ingress/default/first") + "]",
		"a-third.example.com. TXT": "[" + ownership("e2e", "ingress/default/third") + "]",
	} {
		if got := stored[name]; !strings.HasSuffix(got, " "+want) {
			t.Errorf("%s = %q, want %s", name, got, want)
		}
	}
	for _, gone := range []string{"doomed.example.com. A", "a-doomed.example.com. TXT"} {
		if got, ok := stored[gone]; ok {
			t.Errorf("%s is still there: %s", gone, got)
		}
	}

	// Idle again: no reconcile and no PowerDNS call over a quiet period (resync is 1 h).
	t.Logf("idle after the outages: %.3f CPU-seconds per idle minute (this process: zonekeeper and the idle test)",
		expectIdleProvider(t, z, pdnsCalls, 15*time.Second))
}

// processCPU is the user and system CPU time this process (zonekeeper runs in it; the servers do not)
// has used.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
