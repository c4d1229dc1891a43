package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
)

const converge = 15 * time.Second

// The Ingress from the issue: CoreDNS answers its host with the status IP, the ownership TXT names the
// owner and the Ingress, and a status change reaches DNS through an event, not the 1m resync.
func TestIngressPublishedToCoreDNS(t *testing.T) {
	e := startEnv(t)
	ing := e.createIngress(t, ingress("nginx-test-ingress", "default", nil, "dev1.example.com"), "192.168.10.51")
	e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")

	e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.51")
	e.expectAnswer(t, converge, "a-dev1.example.com", dns.TypeTXT, ownership("e2e", "ingress/default/nginx-test-ingress"))

	e.setIngressIP(t, ing, "192.168.10.52")
	e.expectAnswer(t, 5*time.Second, "dev1.example.com", dns.TypeA, "192.168.10.52")
}

// hostname + target annotations and --txt-prefix: a CNAME, and the TXT at a prefixed name.
func TestIngressTargetAnnotationAndTXTPrefix(t *testing.T) {
	e := startEnv(t)
	e.createIngress(t, ingress("nginx-test-ingress", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "dev1.example.com",
		"external-dns.alpha.kubernetes.io/target":   "alias1.example.com",
	}), "192.168.10.51")
	// The CNAME's target, published by another object: CoreDNS leaves out a CNAME whose in-zone target
	// does not exist.
	e.createIngress(t, ingress("alias", "default", nil, "alias1.example.com"), "192.168.10.60")
	e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--txt-prefix=prefix_", "--policy=sync")

	e.expectAnswer(t, converge, "dev1.example.com", dns.TypeA, "192.168.10.60", "cname:alias1.example.com")
	e.expectAnswer(t, converge, "prefix_cname-dev1.example.com", dns.TypeTXT, ownership("e2e", "ingress/default/nginx-test-ingress"))
	if _, got, _ := e.answers("cname-dev1.example.com", dns.TypeTXT); len(got) != 0 {
		t.Fatalf("TXT without the prefix exists: %v", got)
	}
}

// seedForeign writes records someone else owns (external-dns with another owner id) and one nobody
// owns, straight into etcd, in the layout external-dns uses.
func (e *env) seedForeign(t *testing.T) {
	t.Helper()
	e.putEtcd(t, map[string]string{
		"/skydns/com/example/foreign/1a2b3c4d":   `{"host":"10.9.9.9","ttl":300,"targetstrip":1}`,
		"/skydns/com/example/a-foreign/5e6f7a8b": `{"text":"\"heritage=external-dns,external-dns/owner=someone-else,external-dns/resource=service/default/foreign\"","targetstrip":1}`,
		"/skydns/com/example/manual/0badcafe":    `{"host":"10.8.8.8","ttl":300,"targetstrip":1}`,
	})
}

func (e *env) expectForeignIntact(t *testing.T) {
	t.Helper()
	e.expectAnswer(t, time.Second, "foreign.example.com", dns.TypeA, "10.9.9.9")
	e.expectAnswer(t, time.Second, "manual.example.com", dns.TypeA, "10.8.8.8")
}

// A LoadBalancer Service with the hostname annotation gets an A record; deleting the Service deletes
// the record under sync and keeps it under upsert-only and create-only; records written by someone
// else stay untouched under every policy.
func TestServiceLifecycleUnderEachPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy      string
		keepsRecord bool
	}{{"sync", false}, {"upsert-only", true}, {"create-only", true}} {
		t.Run(tc.policy, func(t *testing.T) {
			e := startEnv(t)
			e.seedForeign(t)
			svc := e.createService(t, loadBalancer("web", "default", map[string]string{
				"external-dns.alpha.kubernetes.io/hostname": "web.example.com",
			}), "203.0.113.10")
			// A Service that asks for the foreign names must not take them over.
			e.createService(t, loadBalancer("thief", "default", map[string]string{
				"external-dns.kubernetes.io/hostname": "foreign.example.com,manual.example.com",
			}), "203.0.113.66")
			z := e.start(t, "--source=service", "--txt-owner-id=e2e", "--policy="+tc.policy)

			e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "203.0.113.10")
			e.expectForeignIntact(t)

			if err := e.client.CoreV1().Services("default").Delete(context.Background(), svc.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := e.client.CoreV1().Services("default").Delete(context.Background(), "thief", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if tc.keepsRecord {
				time.Sleep(2 * time.Second) // several debounced runs
				e.expectAnswer(t, time.Second, "web.example.com", dns.TypeA, "203.0.113.10")
				// The log says why the record stays, and `zonekeeper plan` lists it as held.
				if want := "Kept by --policy=" + tc.policy + ": DELETE web.example.com A"; !strings.Contains(z.log.String(), want) {
					t.Errorf("the log lacks %q", want)
				}
				code, out, errOut := e.runCommand(t, "plan", "--source=service", "--txt-owner-id=e2e", "--policy="+tc.policy)
				if code != app.ExitOK || !strings.Contains(out, "Held by --policy="+tc.policy+" (not applied):\nDELETE  web.example.com A 203.0.113.10 (service/default/web)") {
					t.Errorf("zonekeeper plan: exit %d\n%s\n%s", code, out, tail(errOut, 2000))
				}
			} else {
				e.expectNXDOMAIN(t, converge, "web.example.com")
				e.expectNXDOMAIN(t, converge, "a-web.example.com")
			}
			e.expectForeignIntact(t)
		})
	}
}

// Two instances with different owner ids share a zone and never delete each other's records, through
// many resyncs; two with the same id converge instead of fighting.
func TestTwoOwnersShareAZone(t *testing.T) {
	e := startEnv(t)
	e.createNamespace(t, "team-a")
	e.createNamespace(t, "team-b")
	e.createIngress(t, ingress("app", "team-a", nil, "a.example.com"), "198.51.100.1")
	e.createIngress(t, ingress("app", "team-b", nil, "b.example.com"), "198.51.100.2")
	e.start(t, "--source=ingress", "--namespace=team-a", "--txt-owner-id=owner-a", "--policy=sync", "--interval=500ms")
	e.start(t, "--source=ingress", "--namespace=team-b", "--txt-owner-id=owner-b", "--policy=sync", "--interval=500ms")

	e.expectAnswer(t, converge, "a.example.com", dns.TypeA, "198.51.100.1")
	e.expectAnswer(t, converge, "b.example.com", dns.TypeA, "198.51.100.2")
	for i := 0; i < 6; i++ { // three seconds: six resyncs of each
		time.Sleep(500 * time.Millisecond)
		e.expectAnswer(t, time.Second, "a.example.com", dns.TypeA, "198.51.100.1")
		e.expectAnswer(t, time.Second, "b.example.com", dns.TypeA, "198.51.100.2")
	}
}

func TestTwoInstancesWithOneOwnerConverge(t *testing.T) {
	e := startEnv(t)
	e.createIngress(t, ingress("app", "default", nil, "same.example.com"), "198.51.100.7")
	e.start(t, "--source=ingress", "--txt-owner-id=shared", "--policy=sync", "--interval=300ms")
	e.start(t, "--source=ingress", "--txt-owner-id=shared", "--policy=sync", "--interval=300ms")
	e.expectAnswer(t, converge, "same.example.com", dns.TypeA, "198.51.100.7")

	// Once converged, neither instance writes: the etcd revision stands still across many resyncs.
	time.Sleep(time.Second)
	before := e.etcdRevision(t)
	time.Sleep(3 * time.Second)
	if after := e.etcdRevision(t); after != before {
		t.Fatalf("etcd revision moved from %d to %d: the two instances keep writing", before, after)
	}
}

// Malformed annotations produce a warning naming the object and the field, and cost nothing else.
func TestMalformedAnnotationsAreReportedAndIsolated(t *testing.T) {
	e := startEnv(t)
	long := strings.Repeat("x", 70)
	e.createIngress(t, ingress("bad-ttl", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/ttl": "abc",
	}, "ttl.example.com"), "192.0.2.1")
	e.createIngress(t, ingress("bad-hostname", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": long + ".example.com,good-host.example.com",
	}), "192.0.2.2")
	e.createIngress(t, ingress("bad-target", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/target": "not a host!",
	}, "target.example.com"), "192.0.2.3")
	e.createIngress(t, ingress("fine", "default", nil, "fine.example.com"), "192.0.2.4")
	z := e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync")

	e.expectAnswer(t, converge, "fine.example.com", dns.TypeA, "192.0.2.4")
	e.expectAnswer(t, converge, "ttl.example.com", dns.TypeA, "192.0.2.1")
	e.expectAnswer(t, converge, "good-host.example.com", dns.TypeA, "192.0.2.2")
	for _, want := range [][]string{
		{"default/bad-ttl", "external-dns.alpha.kubernetes.io/ttl"},
		{"default/bad-hostname", "external-dns.alpha.kubernetes.io/hostname"},
		{"default/bad-target", "external-dns.alpha.kubernetes.io/target"},
	} {
		found := false
		for _, line := range strings.Split(z.log.String(), "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, want[0]) && strings.Contains(line, want[1]) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning naming %s and %s", want[0], want[1])
		}
	}
	if !z.running() {
		t.Fatal("zonekeeper exited")
	}
}

// etcd stopped for 30 s and started again: the controller keeps running and converges afterwards,
// including a change made during the outage.
func TestEtcdOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 30 s")
	}
	e := startEnv(t)
	ing := e.createIngress(t, ingress("app", "default", nil, "outage.example.com"), "192.0.2.10")
	z := e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	e.expectAnswer(t, converge, "outage.example.com", dns.TypeA, "192.0.2.10")

	e.dnsEtcd.Stop()
	e.setIngressIP(t, ing, "192.0.2.11")
	e.createIngress(t, ingress("new", "default", nil, "during-outage.example.com"), "192.0.2.12")
	time.Sleep(30 * time.Second)
	if !z.running() {
		t.Fatal("zonekeeper exited during the etcd outage")
	}
	if err := e.dnsEtcd.Start(); err != nil {
		t.Fatal(err)
	}
	// Retries back off to at most 10 s, so the change lands soon after etcd returns.
	e.expectAnswer(t, 20*time.Second, "outage.example.com", dns.TypeA, "192.0.2.11")
	e.expectAnswer(t, 5*time.Second, "during-outage.example.com", dns.TypeA, "192.0.2.12")
	if !strings.Contains(z.log.String(), "Failed to do run once") {
		t.Error("the outage was not logged")
	}
	t.Logf("idle after the etcd outage: %.3f CPU-seconds per idle minute", expectIdle(t, z, 15*time.Second))
}
