package e2e

import (
	"context"
	"testing"

	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Services on the event path, end to end against the real kube-apiserver and CoreDNS: two load
// balancers merged at one name (one record set with both addresses), a headless Service whose
// EndpointSlice changes, address changes, and the first merged Service deleted — each reaches DNS
// through a reconcile planned by name, with one full plan (at start) for the whole test.
func TestServiceEventsPlanByName(t *testing.T) {
	e := startEnv(t)
	shared := map[string]string{"external-dns.alpha.kubernetes.io/hostname": "shared.example.com"}
	first := e.createService(t, loadBalancer("lb-a", "default", shared), "10.60.0.1")
	e.createService(t, loadBalancer("lb-b", "default", shared), "10.60.0.2")
	e.createService(t, loadBalancer("solo", "default", map[string]string{"external-dns.alpha.kubernetes.io/hostname": "solo.example.com"}), "10.60.0.3")
	e.createHeadless(t, "db", "db.example.com", "10.60.1.1")
	z := e.start(t, "--source=service", "--txt-owner-id=e2e", "--policy=sync", "--interval=1h")
	e.expectAnswer(t, converge, "shared.example.com", dns.TypeA, "10.60.0.1", "10.60.0.2")
	e.expectAnswer(t, converge, "solo.example.com", dns.TypeA, "10.60.0.3")
	e.expectAnswer(t, converge, "db.example.com", dns.TypeA, "10.60.1.1")

	e.setServiceIP(t, first, "10.60.0.11")
	e.expectAnswer(t, converge, "shared.example.com", dns.TypeA, "10.60.0.11", "10.60.0.2")
	e.setServiceIP(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "solo"}}, "10.60.0.13")
	e.expectAnswer(t, converge, "solo.example.com", dns.TypeA, "10.60.0.13")

	ctx := context.Background()
	slice, err := e.client.DiscoveryV1().EndpointSlices("default").Get(ctx, "db-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := true
	slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.60.1.2"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	if _, err := e.client.DiscoveryV1().EndpointSlices("default").Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.expectAnswer(t, converge, "db.example.com", dns.TypeA, "10.60.1.1", "10.60.1.2")

	if err := e.client.CoreV1().Services("default").Delete(ctx, "lb-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	e.expectAnswer(t, converge, "shared.example.com", dns.TypeA, "10.60.0.2")
	e.expectAnswer(t, converge, "solo.example.com", dns.TypeA, "10.60.0.13")

	_, body, _ := z.get("/metrics")
	byName, full := metricSum(body, "zonekeeper_reconciles_total", `plan="names"`), metricSum(body, "zonekeeper_reconciles_total", `plan="full"`)
	t.Logf("%.0f reconciles planned by name, %.0f in full", byName, full)
	if byName < 4 || full != 1 {
		t.Errorf("%.0f reconciles planned by name and %.0f in full; want every event's by name and one full plan (at start)", byName, full)
	}
	if !z.running() {
		t.Fatalf("zonekeeper exited:\n%s", tail(z.log.String(), 4000))
	}
}
