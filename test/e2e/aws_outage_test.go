package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"

	awsprovider "github.com/zonekeeper/zonekeeper/internal/provider/aws"
)

// callsByOperation counts the emulator's calls since the last ClearCalls.
func callsByOperation(srv *route53emu.Server) map[string]int {
	out := map[string]int{}
	for _, c := range srv.Calls() {
		out[c.Operation]++
	}
	return out
}

// Issue 11 defect 5: during a Route 53 outage the controller listed every zone again on every retry
// (every 10 s at most, forever). Now a write that Route 53 answered with an error applied nothing and
// keeps the cache: the record is retried with backoff and nothing is listed; when even listing fails,
// each backoff step costs one probe (ListHostedZones, one item) and the zones are listed again only
// once it answers. Both phases converge once the faults end.
func TestAWSOutageBacksOffWithoutRelisting(t *testing.T) {
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone})
	e.createService(t, annotated(loadBalancer("first", "default", nil), "hostname", "first."+awsZone), "10.30.0.1")
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})
	want := map[string]string{
		"first." + awsZone + " A":     "10.30.0.1",
		"a-first." + awsZone + " TXT": ownership("e2e", "service/default/first"),
	}
	st.expectSets(t, converge, awsZone, want)

	// Phase 1: writes fail (5xx after the SDK's retries) for 20 s.
	const outage = 20 * time.Second
	srv.ClearCalls()
	if err := srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", Code: "InternalError"}); err != nil {
		t.Fatal(err)
	}
	e.createService(t, annotated(loadBalancer("second", "default", nil), "hostname", "second."+awsZone), "10.30.0.2")
	time.Sleep(outage)
	writes := callsByOperation(srv)
	srv.ClearFaults()
	want["second."+awsZone+" A"] = "10.30.0.2"
	want["a-second."+awsZone+" TXT"] = ownership("e2e", "service/default/second")
	start := time.Now()
	st.expectSets(t, 40*time.Second, awsZone, want)
	t.Logf("write outage of %s: calls %v; converged %s after it ended", outage, writes, time.Since(start).Round(100*time.Millisecond))
	if writes["ListResourceRecordSets"] != 0 || writes["ListHostedZones"] != 0 {
		t.Errorf("the zone was listed again during a write outage (the cache was good): %v", writes)
	}
	// Backoff 1, 2, 4, 8 s (+20%) within 20 s: at most 5 attempts of up to 3 HTTP calls each.
	if n := writes["ChangeResourceRecordSets"]; n == 0 || n > 15 {
		t.Errorf("%d ChangeResourceRecordSets calls in a %s outage, want 1..15", n, outage)
	}

	// Phase 2: everything fails, and the cache is gone (as after an ambiguous failure).
	srv.ClearCalls()
	if err := srv.AddFault(route53emu.Fault{Code: "InternalError"}); err != nil {
		t.Fatal(err)
	}
	st.ctrl.Resync()
	e.createService(t, annotated(loadBalancer("third", "default", nil), "hostname", "third."+awsZone), "10.30.0.3")
	time.Sleep(outage)
	down := callsByOperation(srv)
	srv.ClearFaults()
	want["third."+awsZone+" A"] = "10.30.0.3"
	want["a-third."+awsZone+" TXT"] = ownership("e2e", "service/default/third")
	start = time.Now()
	st.expectSets(t, 40*time.Second, awsZone, want)
	t.Logf("full outage of %s: calls %v; converged %s after it ended", outage, down, time.Since(start).Round(100*time.Millisecond))
	if down["ListResourceRecordSets"] != 0 {
		t.Errorf("zones were listed while the API did not answer: %v", down)
	}
	if n := down["ListHostedZones"]; n == 0 || n > 18 {
		t.Errorf("%d ListHostedZones calls (probes) in a %s outage, want 1..18: %v", n, outage, down)
	}
	if !st.running() {
		t.Fatal("the controller stopped")
	}
}

// Issue 11, fault suite: Route 53 answers every call with InternalError for 60 s, then throttles at
// one request per second for 60 s, while Services are created, changed, renamed (hostname), deleted
// and re-created. The controller never exits; once the faults end the zone holds exactly the desired
// records plus the foreign one, and the process is idle: no Route 53 call and no reconcile over a quiet
// period (the resync is an hour away).
func TestAWSServerErrorsThenThrottling(t *testing.T) {
	if testing.Short() {
		t.Skip("two minutes of faults")
	}
	awsCredentials(t)
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	foreign := route53emu.RecordSet{Name: "manual." + awsZone, Type: "A", TTL: route53emu.NumberOf(300),
		ResourceRecords: &route53emu.ResourceRecords{Items: []route53emu.ResourceRecord{{Value: "192.0.2.77"}}}}
	srv := startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: awsZone, Records: []route53emu.RecordSet{foreign}})
	want := map[string]string{"manual." + awsZone + " A": "192.0.2.77"}
	publish := func(name, host, ip string) {
		e.createService(t, annotated(loadBalancer(name, "default", nil), "hostname", host+"."+awsZone), ip)
		want[host+"."+awsZone+" A"] = ip
		want["a-"+host+"."+awsZone+" TXT"] = ownership("e2e", "service/default/"+name)
	}
	unpublish := func(name, host string) {
		if err := e.client.CoreV1().Services("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		delete(want, host+"."+awsZone+" A")
		delete(want, "a-"+host+"."+awsZone+" TXT")
	}
	for i := range 6 {
		publish(fmt.Sprintf("s%d", i), fmt.Sprintf("s%d", i), fmt.Sprintf("10.31.0.%d", i+1))
	}
	st := startAWS(t, e, srv, txt.Config{}, awsprovider.Config{})
	st.expectSets(t, converge, awsZone, want)

	changes := func(phase int) {
		switch phase {
		case 0: // new, deleted, re-created under the same name with another host and address
			publish("n0", "n0", "10.31.1.1")
			unpublish("s0", "s0")
			publish("s0", "s0-again", "10.31.1.2")
		case 1: // renamed (hostname annotation), address changed, deleted while its create is retried
			svc, err := e.client.CoreV1().Services("default").Get(context.Background(), "s1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			svc.Annotations["external-dns.alpha.kubernetes.io/hostname"] = "s1-renamed." + awsZone
			if _, err := e.client.CoreV1().Services("default").Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			delete(want, "s1."+awsZone+" A")
			delete(want, "a-s1."+awsZone+" TXT")
			want["s1-renamed."+awsZone+" A"] = "10.31.0.2"
			want["a-s1-renamed."+awsZone+" TXT"] = ownership("e2e", "service/default/s1")
			publish("n1", "n1", "10.31.1.3")
			unpublish("n0", "n0")
		}
	}
	const fault = 60 * time.Second
	srv.ClearCalls()
	if err := srv.AddFault(route53emu.Fault{Code: "InternalError"}); err != nil {
		t.Fatal(err)
	}
	changes(0)
	time.Sleep(fault / 2)
	changes(1)
	time.Sleep(fault / 2)
	during5xx := callsByOperation(srv)
	if !st.running() {
		t.Fatal("the controller stopped during the 5xx phase")
	}

	srv.ClearCalls()
	srv.ClearFaults()
	srv.SetRateLimit(1, 1)
	start := time.Now()
	for i := range 8 { // changes arriving faster than one request per second
		publish(fmt.Sprintf("t%d", i), fmt.Sprintf("t%d", i), fmt.Sprintf("10.31.2.%d", i+1))
		time.Sleep(150 * time.Millisecond)
	}
	st.expectSets(t, fault, awsZone, want)
	converged := time.Since(start)
	time.Sleep(fault - converged) // the rest of the throttled minute, converged or not
	duringThrottle, errs := callsByOperation(srv), srv.Counters().Errors
	srv.SetRateLimit(0, 0)
	st.expectSets(t, converge, awsZone, want)
	t.Logf("5xx for %s: calls %v; then 1 request/s: converged %s after the 5xx ended, calls %v, errors %v",
		fault, during5xx, converged.Round(100*time.Millisecond), duringThrottle, errs)
	throttled := 0
	for key, n := range errs {
		if strings.HasSuffix(key, ":Throttling") {
			throttled += n
		}
	}
	if throttled == 0 {
		t.Errorf("the emulator never throttled during the 1 request/s phase (errors %v): that phase tested nothing", errs)
	}
	if during5xx["ListResourceRecordSets"] > 2 {
		t.Errorf("zones listed %d times while every call failed", during5xx["ListResourceRecordSets"])
	}
	// 33 on an idle machine (11 backoff steps x 3 SDK attempts); 51-66 seen at load average 20+ with
	// three e2e tests at a time. A hot loop makes thousands.
	if n := during5xx["ListHostedZones"] + during5xx["ChangeResourceRecordSets"]; n == 0 || n > 120 {
		t.Errorf("%d probes and writes in %s of 5xx, want a bounded backoff (1..120): %v", n, fault, during5xx)
	}

	// Idle: no call and no reconcile.
	time.Sleep(3 * time.Second)
	srv.ClearCalls()
	cpu := processCPU(t)
	const quiet = 15 * time.Second
	time.Sleep(quiet)
	idleCPU := processCPU(t) - cpu
	if idle := callsByOperation(srv); len(idle) != 0 {
		t.Errorf("not idle after the faults: %v in %s", idle, quiet)
	}
	if !st.running() {
		t.Fatal("the controller stopped")
	}
	t.Logf("idle afterwards: %.3f CPU-seconds per idle minute (this process: zonekeeper and the idle test)",
		idleCPU.Seconds()*float64(time.Minute)/float64(quiet))
}
