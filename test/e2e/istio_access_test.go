package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/source/istio/istiotest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// createIstioGateway creates the ingress gateway Service (status 192.0.2.80) in istio-system when
// withService, and a Gateway selecting it with one server per host and annotations kv.
func (e *env) createIstioGateway(t *testing.T, name string, hosts []string, withService bool, kv ...string) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(e.kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	sel := map[string]string{"istio": "ingressgateway"}
	servers := make([][]string, len(hosts))
	for i, h := range hosts {
		servers[i] = []string{h}
	}
	gw := istiotest.Gateway("istio-system", name, sel, servers, kv...)
	if withService {
		sourcetest.Create(t, e.client, dyn, istiotest.Service("istio-system", "ingressgateway", sel, nil, []string{"192.0.2.80"}))
	}
	sourcetest.Create(t, e.client, dyn, gw)
}

// Issue 10 item 2: istio-gateway without the Istio CRDs neither hangs nor stops the ingress source; it
// says so (log, readiness, metric) and starts by itself, without a restart, once the CRDs are installed.
func TestIstioGatewayWaitsForItsCRD(t *testing.T) {
	e := startEnv(t)
	e.createIngress(t, ingress("web", "default", nil, "web.example.com"), "192.0.2.1")
	in := e.start(t, "--source=istio-gateway", "--source=ingress", "--txt-owner-id=default", "--interval=1m")
	e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "192.0.2.1")
	in.expectUnready(t, "networking.istio.io/v1 gateways")
	testbed.Eventually(t, 30*time.Second, "the metric says istio-gateway is unavailable", func() error {
		if _, body, _ := in.get("/metrics"); !strings.Contains(body, `zonekeeper_source_unavailable{source="istio-gateway"} 1`) {
			return fmt.Errorf("metrics: %s", grepLines(body, "source_unavailable"))
		}
		return nil
	})
	log := in.log.String()
	if n := strings.Count(log, "Source cannot run fully"); n != 1 {
		t.Errorf("the missing CRD was logged %d times, want once:\n%s", n, grepLines(log, "Source cannot run fully"))
	}
	if line := grepLines(log, "Source cannot run fully"); !strings.Contains(line, "istio-gateway") || !strings.Contains(line, "networking.istio.io/v1 gateways") {
		t.Errorf("the log does not name the source and the missing resource: %q", line)
	}

	testbed.InstallIstio(t, e.kube)
	e.createIstioGateway(t, "public", []string{"istio.example.com", "bad_host!.example.com"}, true, "ttl", "soon")
	e.expectAnswer(t, 3*time.Minute, "istio.example.com", dns.TypeA, "192.0.2.80")
	e.expectAnswer(t, converge, "a-istio.example.com", dns.TypeTXT, ownership("default", "gateway/istio-system/public"))
	// The Gateway is told what was published and what was not read, field by field.
	e.expectEvent(t, "istio-system", "Gateway", "public", "Published", "istio.example.com")
	e.expectEvent(t, "istio-system", "Gateway", "public", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/ttl", "soon")
	e.expectEvent(t, "istio-system", "Gateway", "public", "InvalidInput", "spec.servers[1].hosts[0]", "bad_host!.example.com")
	testbed.Eventually(t, 30*time.Second, "istio-gateway available", func() error {
		if _, body, _ := in.get("/metrics"); !strings.Contains(body, `zonekeeper_source_unavailable{source="istio-gateway"} 0`) {
			return fmt.Errorf("metrics: %s", grepLines(body, "source_unavailable"))
		}
		return nil
	})
	if !in.running() {
		t.Fatal("zonekeeper stopped")
	}
	e.expectAnswer(t, converge, "web.example.com", dns.TypeA, "192.0.2.1")
}

// Issue 10 item 2: a ClusterRole with get, list, watch on networking.istio.io gateways and core
// services (the seed deployment's Istio rule) runs istio-gateway; istio-virtualservice, which also
// reads virtualservices, is refused with a message naming them.
func TestIstioGatewayRunsWithGatewaysAndServicesOnly(t *testing.T) {
	e := startEnv(t)
	testbed.InstallIstio(t, e.kube)
	e.createIstioGateway(t, "public", []string{"rbac.example.com"}, true)
	verbs := []string{"get", "list", "watch"}
	e.bindUser(t, "istio-gw", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: verbs},
		{APIGroups: []string{"networking.istio.io"}, Resources: []string{"gateways"}, Verbs: verbs},
	})
	user := e.kube.KubeconfigAs(t, "istio-gw")
	if code, log := runOnceAs(t, user, "--source=istio-gateway"); code != 0 {
		t.Fatalf("istio-gateway with gateways and services: exit %d\n%s", code, tail(log, 4000))
	}
	e.expectAnswer(t, converge, "rbac.example.com", dns.TypeA, "192.0.2.80")

	code, log := runOnceAs(t, user, "--source=istio-virtualservice")
	if code == 0 {
		t.Errorf("istio-virtualservice without virtualservices access exited 0\n%s", tail(log, 4000))
	}
	if !strings.Contains(log, "virtualservices.networking.istio.io") {
		t.Errorf("the log does not name virtualservices.networking.istio.io:\n%s", tail(log, 4000))
	}
}
