package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The mass-change guard (issue 11): deleting every Ingress of a namespace with 500 of them is held
// with the default flags, and says so in the log, /readyz, the metric and zonekeeper plan; deleting 5
// is applied. Confirming the held plan's digest applies it.
func TestGuardHoldsAMassDelete(t *testing.T) {
	e := startEnv(t)
	e.createNamespace(t, "apps")
	e.createNamespace(t, "small")
	for i := range 500 {
		e.createIngress(t, ingress(fmt.Sprintf("h%d", i), "apps", nil, fmt.Sprintf("h%d.example.com", i)), "192.0.2.10")
	}
	for i := range 5 {
		e.createIngress(t, ingress(fmt.Sprintf("s%d", i), "small", nil, fmt.Sprintf("s%d.example.com", i)), "192.0.2.20")
	}
	// The first sync publishes 505 objects: Events are bounded (100 per-object Events a minute, then
	// one summary per namespace) and have their own client, so the guard's Event does not wait behind
	// them; the raised --kube-api-qps dates from when they shared the main client's rate.
	flags := []string{"--source=ingress", "--policy=sync", "--txt-owner-id=default", "--interval=1m", "--kube-api-qps=100", "--kube-api-burst=200"}
	in := e.start(t, flags...)
	e.expectAnswer(t, time.Minute, "h499.example.com", dns.TypeA, "192.0.2.10")
	e.expectAnswer(t, converge, "s4.example.com", dns.TypeA, "192.0.2.20")

	deleteAll := func(ns string) {
		if err := e.client.NetworkingV1().Ingresses(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// 5 of 505: applied.
	deleteAll("small")
	e.expectNXDOMAIN(t, converge, "s4.example.com")

	// 500 of 500: held, everything stays.
	deleteAll("apps")
	in.expectUnready(t, "mass change held in zone")
	for _, name := range []string{"h0.example.com", "h250.example.com", "h499.example.com"} {
		e.expectAnswer(t, converge, name, dns.TypeA, "192.0.2.10")
	}
	if _, body, _ := in.get("/metrics"); !strings.Contains(body, `zonekeeper_guard_held_changes{view="",zone="example.com"} 500`) {
		t.Errorf("metric:\n%s", grepLines(body, "guard"))
	}
	digest := regexp.MustCompile(`--guard-confirm=([0-9a-f]{12})`).FindStringSubmatch(in.log.String())
	if digest == nil {
		t.Fatalf("the log does not give the digest:\n%s", tail(in.log.String(), 3000))
	}
	if n := strings.Count(in.log.String(), "Mass change held"); n != 1 {
		t.Errorf("the held plan was logged %d times, want once", n)
	}
	// The namespace whose objects' records would go is told, with the digest to confirm.
	testbed.Eventually(t, converge, "a MassChangeHeld Event in namespace apps", func() error {
		evs, err := e.client.CoreV1().Events("apps").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, ev := range evs.Items {
			if ev.Reason == "MassChangeHeld" && ev.InvolvedObject.Kind == "Namespace" && ev.InvolvedObject.Name == "apps" &&
				strings.Contains(ev.Message, "--guard-confirm="+digest[1]) {
				return nil
			}
		}
		return fmt.Errorf("%d events, none MassChangeHeld on Namespace apps with the digest", len(evs.Items))
	})
	code, out, errOut := e.runCommand(t, "plan", "--source=ingress", "--txt-owner-id=default", "--policy=sync")
	if !strings.Contains(out, "HELD") || !strings.Contains(out, digest[1]) {
		t.Errorf("zonekeeper plan (exit %d) does not show the held zone with its digest:\n%s\n%s", code, tail(out, 2000), errOut)
	}
	in.stop(t)

	// The operator confirms exactly this plan.
	e.start(t, append(flags, "--guard-confirm="+digest[1])...)
	e.expectNXDOMAIN(t, time.Minute, "h499.example.com")
	testbed.Eventually(t, converge, "every record deleted", func() error {
		if rcode, got, err := e.answers("h0.example.com", dns.TypeA); err != nil || rcode != dns.RcodeNameError {
			return fmt.Errorf("h0: %v %v", got, err)
		}
		return nil
	})
}
