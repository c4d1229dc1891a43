package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Issue 11, fault suite: Ingress status updates arrive at up to 1,000 per second for 30 s (50
// Ingresses, each changing its address over and over). Nothing may be lost: once the storm ends, DNS
// answers each Ingress's last address (the last write wins), and the process goes idle. Every event's
// reconcile plans only the names its Ingresses touched (issue 15): the only full plan is the one at
// start (the resync is an hour away).
func TestIngressUpdateStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("30 s of updates")
	}
	e := startEnv(t)
	const ingresses, rate, storm = 100, 1000, 30 * time.Second
	ings := make([]*networkingv1.Ingress, ingresses)
	for i := range ings {
		ings[i] = e.createIngress(t, ingress(fmt.Sprintf("storm%d", i), "default", nil, fmt.Sprintf("storm%d.example.com", i)), "10.50.0.1")
	}
	z := e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	e.expectAnswer(t, converge, "storm0.example.com", dns.TypeA, "10.50.0.1")
	e.expectAnswer(t, converge, fmt.Sprintf("storm%d.example.com", ingresses-1), dns.TypeA, "10.50.0.1")

	// A client with room for the rate (the test's default client is limited to 200 requests/s).
	cfg := rest.CopyConfig(e.kube.Config)
	cfg.QPS, cfg.Burst = 2*rate, 2*rate
	fast, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sent, failed atomic.Int64
	last := make([]string, ingresses)
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	deadline := time.Now().Add(storm)
	var wg sync.WaitGroup
	work := make(chan int, ingresses) // an Ingress is updated by one writer at a time, in order
	for i := range ingresses {
		work <- i
	}
	for n := 0; time.Now().Before(deadline); n++ {
		<-tick.C
		var i int
		select {
		case i = <-work:
		default:
			continue // every Ingress has an update in flight: the API server is the limit
		}
		wg.Add(1)
		go func(i, n int) {
			defer wg.Done()
			defer func() { work <- i }()
			ing := ings[i].DeepCopy()
			ip := fmt.Sprintf("10.50.%d.%d", 1+(n/250)%250, 1+n%250)
			ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: ip}}
			updated, err := fast.NetworkingV1().Ingresses("default").UpdateStatus(context.Background(), ing, metav1.UpdateOptions{})
			if err != nil {
				failed.Add(1)
				got, gerr := fast.NetworkingV1().Ingresses("default").Get(context.Background(), ing.Name, metav1.GetOptions{})
				if gerr == nil {
					ings[i] = got
				}
				return
			}
			ings[i], last[i] = updated, ip
			sent.Add(1)
		}(i, n)
	}
	wg.Wait()
	t.Logf("%d status updates in %s (%.0f/s; %d conflicts or errors retried with a fresh read)",
		sent.Load(), storm, float64(sent.Load())/storm.Seconds(), failed.Load())
	if !z.running() {
		t.Fatalf("zonekeeper exited during the storm:\n%s", tail(z.log.String(), 4000))
	}

	start := time.Now()
	for i := range ingresses {
		want := last[i]
		if want == "" {
			want = "10.50.0.1"
		}
		e.expectAnswer(t, converge, fmt.Sprintf("storm%d.example.com", i), dns.TypeA, want)
	}
	t.Logf("every Ingress's last address answered %s after the storm", time.Since(start).Round(10*time.Millisecond))

	_, body, _ := z.get("/metrics")
	applied := metricSum(body, "zonekeeper_changes_applied_total")
	byName, full := metricSum(body, "zonekeeper_reconciles_total", `plan="names"`), metricSum(body, "zonekeeper_reconciles_total", `plan="full"`)
	t.Logf("%.0f reconciles planned by name, %.0f in full", byName, full)
	if byName == 0 || full != 1 {
		t.Errorf("%.0f reconciles planned by name and %.0f in full; want every event's by name and one full plan (at start)", byName, full)
	}
	t.Logf("%.0f changes applied for %d updates; idle afterwards: %.3f CPU-seconds per idle minute",
		applied, sent.Load(), expectIdle(t, z, 10*time.Second))
}
