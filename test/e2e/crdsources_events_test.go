package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/source/openshift/openshifttest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// A running zonekeeper started before the Traefik, Contour and OpenShift CRDs exist waits for them,
// then publishes an IngressRoute, an HTTPProxy and a Route to CoreDNS, and tells each object what it did:
// Published, and its bad annotation named.
func TestCRDSourcesOnCoreDNSWithEvents(t *testing.T) {
	e := startEnv(t)
	zk := e.start(t, "--source=traefik-proxy", "--source=contour-httpproxy", "--source=openshift-route", "--txt-owner-id=e2e", "--policy=sync")
	testbed.Eventually(t, converge, "the sources waiting for their CRDs", func() error {
		waiting := map[string]bool{}
		for _, line := range strings.Split(zk.log.String(), "\n") {
			for _, kind := range []string{"traefik-proxy", "contour-httpproxy", "openshift-route"} {
				if strings.Contains(line, "Source cannot run fully") && strings.Contains(line, "source="+kind+" ") {
					waiting[kind] = true
				}
			}
		}
		if len(waiting) < 3 {
			return fmt.Errorf("waiting: %v", waiting)
		}
		return nil
	})
	testbed.InstallTraefik(t, e.kube, false)
	testbed.InstallContour(t, e.kube)
	testbed.InstallOpenShiftRoutes(t, e.kube)
	dyn, err := dynamic.NewForConfig(e.kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Create(t, e.client, dyn,
		sourcetest.Object("traefik.io/v1alpha1", "IngressRoute", "default", "web", sourcetest.Annotations("target", "192.0.2.60", "ttl", "soon"),
			map[string]any{"routes": []any{map[string]any{"match": "Host(`traefik.example.com`) && PathPrefix(`/`)"}}}, nil),
		sourcetest.Object("projectcontour.io/v1", "HTTPProxy", "default", "web", sourcetest.Annotations("ttl", "soon"),
			map[string]any{"virtualhost": map[string]any{"fqdn": "contour.example.com"}},
			map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.61"}}}}),
		openshifttest.Route("default", "web", "openshift.example.com",
			[]openshifttest.Entry{{"openshift.example.com", "default", "router.apps.example.net", "True"}}, nil,
			"target", "192.0.2.62", "ttl", "soon"),
	)
	// The sources retry with backoff (5 s, doubling) until their CRDs are served.
	e.expectAnswer(t, 2*time.Minute, "traefik.example.com", dns.TypeA, "192.0.2.60")
	e.expectAnswer(t, 2*time.Minute, "contour.example.com", dns.TypeA, "192.0.2.61")
	e.expectAnswer(t, 2*time.Minute, "openshift.example.com", dns.TypeA, "192.0.2.62")
	e.expectAnswer(t, converge, "a-traefik.example.com", dns.TypeTXT, ownership("e2e", "ingressroute/default/web"))
	e.expectAnswer(t, converge, "a-contour.example.com", dns.TypeTXT, ownership("e2e", "HTTPProxy/default/web"))
	e.expectAnswer(t, converge, "a-openshift.example.com", dns.TypeTXT, ownership("e2e", "route/default/web"))
	for kind, name := range map[string]string{"IngressRoute": "traefik.example.com", "HTTPProxy": "contour.example.com", "Route": "openshift.example.com"} {
		e.expectEvent(t, "default", kind, "web", "Published", name)
		e.expectEvent(t, "default", kind, "web", "InvalidAnnotation", "external-dns.alpha.kubernetes.io/ttl", "soon")
	}
}
