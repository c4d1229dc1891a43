package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Issue 11, fault suite: BIND goes away twice while Ingresses are created, changed and deleted: first
// stopped for 60 s (connections refused, UDP unanswered), then paused for 30 s (SIGSTOP: TCP
// connections hang). zonekeeper (RFC 2136 with TSIG, AXFR for reading) never exits, retries with a
// bounded backoff, and once BIND is back every change made meanwhile is in the zone, the record it
// does not own is untouched, and the process goes idle.
func TestBINDOutages(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	key := testbed.NewTSIGKey(t, "zonekeeper-key", "hmac-sha256")
	bind := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{{
		Name: "example.com", UpdateKey: key.Name, TransferKey: key.Name, Records: []string{"manual IN A 10.8.8.8"},
	}}})
	first := e.createIngress(t, ingress("first", "default", nil, "first.example.com"), "10.41.0.1")
	doomed := e.createIngress(t, ingress("doomed", "default", nil, "doomed.example.com"), "10.41.0.2")

	host, port := splitAddr(t, bind.Addr)
	t.Setenv("EXTERNAL_DNS_RFC2136_TSIG_SECRET", key.Secret)
	z := e.start(t, "--source=ingress", "--provider=rfc2136", "--rfc2136-host="+host, fmt.Sprintf("--rfc2136-port=%d", port),
		"--rfc2136-zone=example.com", "--rfc2136-tsig-keyname="+key.Name, "--rfc2136-tsig-secret-alg=hmac-sha256",
		"--rfc2136-tsig-axfr", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	expectBIND(t, bind.Addr, converge, "first.example.com", dns.TypeA, "10.41.0.1")
	expectBIND(t, bind.Addr, converge, "doomed.example.com", dns.TypeA, "10.41.0.2")

	calls := providerCalls(t, z, "rfc2136")
	outage := func(name string, d time.Duration, down, up func(), mutate func(i int)) {
		t.Helper()
		runOutage(t, z, calls, name, d, down, up, mutate)
	}

	outage("BIND stopped", 60*time.Second, bind.Stop, func() { bind.Start(t) }, func(i int) {
		switch i {
		case 0:
			e.createIngress(t, ingress("second", "default", nil, "second.example.com"), "10.41.0.3")
			first = e.setIngressIP(t, first, "10.41.1.1")
		case 1:
			if err := e.client.NetworkingV1().Ingresses("default").Delete(context.Background(), doomed.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	})
	start := time.Now()
	expectBIND(t, bind.Addr, 90*time.Second, "second.example.com", dns.TypeA, "10.41.0.3")
	expectBIND(t, bind.Addr, 10*time.Second, "first.example.com", dns.TypeA, "10.41.1.1")
	expectBIND(t, bind.Addr, 10*time.Second, "doomed.example.com", dns.TypeA)
	expectBIND(t, bind.Addr, 10*time.Second, "a-doomed.example.com", dns.TypeTXT)
	t.Logf("converged %s after BIND came back", time.Since(start).Round(100*time.Millisecond))

	outage("BIND paused", 30*time.Second, func() { bind.Pause(t) }, func() { bind.Resume(t) }, func(i int) {
		if i == 0 {
			e.createIngress(t, ingress("third", "default", nil, "third.example.com"), "10.41.0.4")
		} else {
			first = e.setIngressIP(t, first, "10.41.2.1")
		}
	})
	start = time.Now()
	expectBIND(t, bind.Addr, 90*time.Second, "third.example.com", dns.TypeA, "10.41.0.4")
	expectBIND(t, bind.Addr, 10*time.Second, "first.example.com", dns.TypeA, "10.41.2.1")
	t.Logf("converged %s after BIND resumed", time.Since(start).Round(100*time.Millisecond))

	// Nothing lost, nothing foreign touched: the whole zone by AXFR.
	got := bindZone(t, bind.Addr, key)
	for name, want := range map[string]string{
		"manual.example.com. A":    "10.8.8.8",
		"first.example.com. A":     "10.41.2.1",
		"second.example.com. A":    "10.41.0.3",
		"third.example.com. A":     "10.41.0.4",
		"a-first.example.com. TXT": ownershipOnWire("e2e", "ingress/default/first"),
		"a-third.example.com. TXT": ownershipOnWire("e2e", "ingress/default/third"),
	} {
		if got[name] != want {
			t.Errorf("%s = %q, want %q", name, got[name], want)
		}
	}
	for _, gone := range []string{"doomed.example.com. A", "a-doomed.example.com. TXT"} {
		if v, ok := got[gone]; ok {
			t.Errorf("%s is still there: %s", gone, v)
		}
	}

	// Idle again: no reconcile and no call to BIND over a quiet period (resync is 1 h).
	t.Logf("idle after the outages: %.3f CPU-seconds per idle minute (this process: zonekeeper and the idle test)",
		expectIdleProvider(t, z, calls, 15*time.Second))
	if strings.Contains(z.log.String(), key.Secret) {
		t.Fatal("the TSIG secret is in the log")
	}
}

// bindZone transfers the zone example.com (AXFR, signed with key) and returns "name type" → the
// record's data as presented on the wire (TXT strings joined), one record per name and type.
func bindZone(t *testing.T, addr string, key testbed.TSIGKey) map[string]string {
	t.Helper()
	m := new(dns.Msg)
	m.SetAxfr("example.com.")
	m.SetTsig(dns.Fqdn(key.Name), dns.Fqdn(key.Algorithm), 300, time.Now().Unix())
	tr := &dns.Transfer{TsigSecret: map[string]string{dns.Fqdn(key.Name): key.Secret}}
	ch, err := tr.In(m, addr)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for env := range ch {
		if env.Error != nil {
			t.Fatal(env.Error)
		}
		for _, rr := range env.RR {
			k := rr.Header().Name + " " + dns.TypeToString[rr.Header().Rrtype]
			switch v := rr.(type) {
			case *dns.A:
				out[k] = v.A.String()
			case *dns.TXT:
				out[k] = strings.Join(v.Txt, "")
			}
		}
	}
	return out
}
