package e2e

import (
	"testing"
	"time"

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
	srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", Code: "InternalError"})
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
	srv.AddFault(route53emu.Fault{Code: "InternalError"})
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
