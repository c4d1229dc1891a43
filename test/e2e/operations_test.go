package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// /readyz turns unready, with the reason, while the DNS provider is down, and ready again after it
// returns; /healthz stays OK throughout; /metrics carries external-dns's metric names.
func TestReadinessAndMetricsFollowTheProvider(t *testing.T) {
	e := startEnv(t)
	ing := e.createIngress(t, ingress("app", "default", nil, "ready.example.com"), "192.0.2.20")
	z := e.start(t, "--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	e.expectAnswer(t, converge, "ready.example.com", dns.TypeA, "192.0.2.20")
	expectProbe := func(path string, code int, body string) {
		t.Helper()
		testbed.Eventually(t, 30*time.Second, path, func() error {
			c, b, err := z.get(path)
			if err != nil {
				return err
			}
			if c != code || !strings.Contains(b, body) {
				return fmt.Errorf("%d %q", c, b)
			}
			return nil
		})
	}
	expectProbe("/readyz", 200, "ok")

	_, metrics, err := z.get("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"external_dns_controller_last_sync_timestamp_seconds", "external_dns_source_endpoints_total 1",
		"external_dns_registry_endpoints_total", "external_dns_source_errors_total", "external_dns_registry_errors_total",
		"zonekeeper_sync_duration_seconds_bucket", `zonekeeper_changes_applied_total{action="CREATE",record_type="A",view=""} 1`,
		`zonekeeper_view_endpoints{kind="desired",view=""} 1`,
		`zonekeeper_provider_calls_total{operation="apply_changes",provider="coredns"}`,
	} {
		if !strings.Contains(metrics, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}

	e.dnsEtcd.Stop()
	e.setIngressIP(t, ing, "192.0.2.21") // an event makes the controller talk to etcd
	expectProbe("/readyz", 503, "last reconcile failed")
	expectProbe("/healthz", 200, "ok")
	if err := e.dnsEtcd.Start(); err != nil {
		t.Fatal(err)
	}
	expectProbe("/readyz", 200, "ok")
	e.expectAnswer(t, converge, "ready.example.com", dns.TypeA, "192.0.2.21")
	_, metrics, _ = z.get("/metrics")
	if !strings.Contains(metrics, "zonekeeper_event_to_applied_seconds_count") {
		t.Error("no event-to-applied latency")
	}
}

// events lists the Events of an object with the given reason.
func (e *env) events(t testing.TB, namespace, kind, name, reason string) []corev1.Event {
	t.Helper()
	list, err := e.client.CoreV1().Events(namespace).List(context.Background(), metav1.ListOptions{
		FieldSelector: fmt.Sprintf("involvedObject.kind=%s,involvedObject.name=%s,reason=%s", kind, name, reason),
	})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func (e *env) expectEvent(t testing.TB, namespace, kind, name, reason string, contains ...string) {
	t.Helper()
	testbed.Eventually(t, converge, fmt.Sprintf("%s event on %s %s", reason, kind, name), func() error {
		for _, ev := range e.events(t, namespace, kind, name, reason) {
			ok := ev.InvolvedObject.UID != ""
			for _, c := range contains {
				ok = ok && strings.Contains(ev.Message, c)
			}
			if ok {
				return nil
			}
		}
		return fmt.Errorf("none matching %v", contains)
	})
}

// Users learn from their objects what happened: a published name, a name held by another owner (the
// Event names the owner), and an invalid annotation (the Event names it).
func TestEventsOnObjects(t *testing.T) {
	e := startEnv(t)
	// someone-else's record, with its ownership TXT, as another external-dns would have written it.
	e.putEtcd(t, map[string]string{
		"/skydns/com/example/taken/0a0b0c0d":   `{"host":"10.9.9.9","targetstrip":1}`,
		"/skydns/com/example/a-taken/0e0f0a0b": `{"text":"\"heritage=external-dns,external-dns/owner=other-cluster,external-dns/resource=ingress/prod/taken\"","targetstrip":1}`,
	})
	e.createIngress(t, ingress("good", "default", nil, "good.example.com"), "192.0.2.30")
	e.createIngress(t, ingress("wants-taken", "default", nil, "taken.example.com"), "192.0.2.31")
	e.createService(t, loadBalancer("bad-ttl", "default", map[string]string{
		"external-dns.alpha.kubernetes.io/hostname": "svc.example.com",
		"external-dns.alpha.kubernetes.io/ttl":      "abc",
	}), "192.0.2.32")
	e.start(t, "--source=ingress", "--source=service", "--txt-owner-id=e2e", "--policy=sync")

	e.expectEvent(t, "default", "Ingress", "good", "Published", "good.example.com A 192.0.2.30")
	e.expectEvent(t, "default", "Ingress", "wants-taken", "Conflict", "taken.example.com", `"other-cluster"`)
	e.expectEvent(t, "default", "Service", "bad-ttl", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/ttl", "abc")
	e.expectAnswer(t, time.Second, "taken.example.com", dns.TypeA, "10.9.9.9")
	e.expectAnswer(t, converge, "svc.example.com", dns.TypeA, "192.0.2.32")
}

// Two replicas with leader election: only the leader writes; when it stops, the other takes over
// within the lease duration and publishes an Ingress created meanwhile.
func TestLeaderElectionFailover(t *testing.T) {
	e := startEnv(t)
	e.createIngress(t, ingress("first", "default", nil, "first.example.com"), "192.0.2.40")
	flags := []string{"--source=ingress", "--txt-owner-id=e2e", "--policy=sync", "--leader-elect",
		"--leader-elect-namespace=default", "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
		"--leader-elect-retry-period=500ms"}
	a := e.start(t, flags...)
	e.expectAnswer(t, converge, "first.example.com", dns.TypeA, "192.0.2.40")
	b := e.start(t, flags...)
	testbed.Eventually(t, converge, "second replica follows", func() error {
		if !strings.Contains(b.log.String(), "Following the leader") {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	if !strings.Contains(a.log.String(), "Became the leader") {
		t.Fatal("the first replica never led")
	}
	if strings.Contains(b.log.String(), "Desired change") || strings.Contains(b.log.String(), "All records are already up to date") {
		t.Fatal("the follower reconciled while the leader was alive")
	}
	_, ready, _ := b.get("/readyz")
	if !strings.Contains(ready, "follower") {
		t.Errorf("follower readiness: %q", ready)
	}

	a.stop(t)
	stopped := time.Now()
	e.createIngress(t, ingress("second", "default", nil, "second.example.com"), "192.0.2.41")
	e.expectAnswer(t, 4*time.Second+converge/3, "second.example.com", dns.TypeA, "192.0.2.41")
	t.Logf("takeover and publish took %s", time.Since(stopped).Round(10*time.Millisecond))
	if !strings.Contains(b.log.String(), "Became the leader") {
		t.Fatal("the second replica did not take over")
	}
}
