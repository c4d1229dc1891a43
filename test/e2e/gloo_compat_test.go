package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// glooFixture is the differential test's cluster: 26 Proxies (21 in gloo-system, one of them with an
// aggregate listener, 3 in gloo-two, 1 in other) with their Services (load balancer IPs, IPv6, a hostname, none, a ClusterIP one), Gateways
// (plain, and one whose ingress annotation names an Ingress), VirtualServices carrying ttl and
// aws-weight, both virtual-host reference styles, several listeners and hosts per Proxy, catch-all,
// wildcard, trailing-dot and bad domains, a domain two Proxies share, the target annotation, a label
// and the controller annotation. No reference is broken: external-dns fails its whole run on one.
func glooFixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	vs := func(ns, name string, kv ...string) {
		out = append(out, sourcetest.Object("gateway.solo.io/v1", "VirtualService", ns, name, sourcetest.Annotations(kv...), map[string]any{}, nil))
	}
	vs("apps", "plain")
	vs("apps", "ttl", "ttl", "120")
	vs("apps", "weighted", "aws-weight", "10", "ttl", "60")
	vs("apps", "badttl", "ttl", "abc")
	out = append(out,
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "gateway-proxy", nil, map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "via-ingress", sourcetest.Annotations("ingress", "apps/edge"), map[string]any{}, nil))
	svc := func(ns, name, typ string, lb ...string) {
		var ingress []any
		for _, a := range lb {
			k, v, _ := strings.Cut(a, "=")
			ingress = append(ingress, map[string]any{k: v})
		}
		var status map[string]any
		if len(ingress) > 0 {
			status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
		}
		out = append(out, sourcetest.Object("v1", "Service", ns, name, nil,
			map[string]any{"type": typ, "ports": []any{map[string]any{"port": int64(80)}}}, status))
	}
	host := func(static bool, vsName string, domains ...string) map[string]any {
		var ds []any
		for _, d := range domains {
			ds = append(ds, d)
		}
		vh := map[string]any{"domains": ds}
		if vsName != "" && static {
			vh["metadataStatic"] = map[string]any{"sources": []any{map[string]any{"resourceKind": "*v1.VirtualService", "resourceRef": map[string]any{"name": vsName, "namespace": "apps"}}}}
		} else if vsName != "" {
			vh["metadata"] = map[string]any{"sources": []any{map[string]any{"kind": "*v1.VirtualService", "name": vsName, "namespace": "apps"}}}
		}
		return vh
	}
	proxy := func(ns, name, gateway string, labels map[string]string, hosts []any, kv ...string) {
		l := map[string]any{"httpListener": map[string]any{"virtualHosts": hosts}}
		if gateway != "" {
			l["metadataStatic"] = map[string]any{"sources": []any{map[string]any{"resourceKind": "*v1.Gateway", "resourceRef": map[string]any{"name": gateway, "namespace": "gloo-system"}}}}
		}
		u := sourcetest.Object("gloo.solo.io/v1", "Proxy", ns, name, sourcetest.Annotations(kv...), map[string]any{"listeners": []any{l}}, nil)
		u.SetLabels(labels)
		out = append(out, u)
	}
	for i := 1; i <= 12; i++ {
		name := fmt.Sprintf("p%02d", i)
		lb := []string{fmt.Sprintf("ip=192.0.2.%d", i)}
		switch i {
		case 2:
			lb = append(lb, "ip=2001:db8::2")
		case 3:
			lb = []string{"hostname=lb-p03.example.net"}
		case 4:
			lb = nil
		}
		svc("gloo-system", name, "LoadBalancer", lb...)
		vsName := []string{"", "plain", "ttl", "weighted", "badttl"}[i%5]
		proxy("gloo-system", name, "gateway-proxy", nil, []any{
			host(i%2 == 0, vsName, name+".example.com", name+"-alt.example.com."),
			host(false, "", "*", name+"-second.example.com"),
		})
	}
	svc("gloo-system", "p13", "ClusterIP")
	proxy("gloo-system", "p13", "", nil, []any{host(false, "", "p13.example.com")})
	proxy("gloo-system", "p14", "", nil, []any{host(false, "ttl", "p14.example.com")}, "target", "203.0.113.14")
	proxy("gloo-system", "p15", "", nil, []any{host(false, "", "p15.example.com")}, "target", "lb-p15.example.net.")
	svc("gloo-system", "p16", "LoadBalancer", "ip=192.0.2.16")
	proxy("gloo-system", "p16", "", nil, []any{host(false, "", "*.p16.example.com")})
	svc("gloo-system", "p17", "LoadBalancer", "ip=192.0.2.17")
	proxy("gloo-system", "p17", "", nil, []any{host(false, "", "bad_name!.example.com", "p17.example.com")})
	svc("gloo-system", "p18", "LoadBalancer", "ip=192.0.2.18")
	proxy("gloo-system", "p18", "", nil, []any{host(false, "", "shared.example.com")})
	svc("gloo-system", "p19", "LoadBalancer", "ip=192.0.2.19")
	proxy("gloo-system", "p19", "", map[string]string{"app": "none"}, []any{host(false, "", "p19.example.com")})
	svc("gloo-system", "p20", "LoadBalancer", "ip=192.0.2.20")
	proxy("gloo-system", "p20", "", nil, []any{host(false, "", "p20.example.com")}, "controller", "someone-else")
	proxy("gloo-system", "p21", "via-ingress", nil, []any{host(false, "plain", "p21.example.com")})
	svc("gloo-two", "p22", "LoadBalancer", "ip=192.0.2.22")
	proxy("gloo-two", "p22", "", nil, []any{host(false, "", "shared.example.com", "p22.example.com")})
	svc("gloo-two", "p23", "LoadBalancer", "hostname=lb-p23.example.net")
	proxy("gloo-two", "p23", "", nil, []any{host(true, "weighted", "p23.example.com")})
	proxy("gloo-two", "p24", "", nil, []any{host(false, "", "p24.example.com")}, "target", "203.0.113.24")
	proxy("other", "p25", "", nil, []any{host(false, "", "p25.example.com")}, "target", "203.0.113.25")
	out = append(out, sourcetest.Object("gloo.solo.io/v1", "Proxy", "gloo-system", "p26", sourcetest.Annotations("target", "203.0.113.26"),
		map[string]any{"listeners": []any{map[string]any{"aggregateListener": map[string]any{
			"httpFilterChains": []any{map[string]any{"virtualHostRefs": []any{"a", "b"}}},
			"httpResources": map[string]any{"virtualHosts": map[string]any{
				"a": host(true, "ttl", "p26a.example.com"), "b": host(false, "", "p26b.example.com"), "unused": host(false, "", "p26c.example.com")}},
		}}}}, nil))
	out = append(out, sourcetest.Object("networking.k8s.io/v1", "Ingress", "apps", "edge", nil,
		map[string]any{"defaultBackend": map[string]any{"service": map[string]any{"name": "edge", "port": map[string]any{"number": int64(80)}}}},
		map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "198.51.100.21"}}}}))
	return out
}

// TestGlooSourceMatchesExternalDNS compares the gloo-proxy source with external-dns's.
func TestGlooSourceMatchesExternalDNS(t *testing.T) {
	base := crdCluster(t, testbed.InstallGloo, "gloo-proxy", glooFixture())
	txt := []diffPin{
		{onlyED: true, re: regexp.MustCompile(`^(a|aaaa|cname)-`),
			why: "ownership TXT: external-dns's gloo source writes no resource label, zonekeeper writes proxy/<ns>/<name> (for Events)"},
		{re: regexp.MustCompile(`^(a|aaaa|cname)-`), why: "ownership TXT with the resource label (zonekeeper)"},
	}
	pins := append([]diffPin{
		{onlyED: true, re: regexp.MustCompile(`^bad_name!\.`),
			why: "a domain that is not a DNS name: external-dns publishes it, zonekeeper reports it"},
		{onlyED: true, re: regexp.MustCompile(`^\*\.p16\.`),
			why: "a wildcard name on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true},
		{onlyED: true, v021: true, re: regexp.MustCompile(`^p20\.`),
			why: "the controller annotation on a Proxy: external-dns v0.21 ignores it, v0.23 and zonekeeper skip the Proxy"},
		{v021: true, re: regexp.MustCompile(`^p26[ab]\.`),
			why: "aggregate listeners: external-dns v0.21 reads HTTP listeners only, v0.23 and zonekeeper both"},
	}, txt...)
	sets := []diffSet{
		{nil, pins, 40},
		{[]string{"--gloo-namespace=gloo-system", "--gloo-namespace=gloo-two"}, pins, 40},
		{[]string{"--gloo-namespace=gloo-two", "--label-filter=app!=none"}, txt, 4},
		{[]string{"--label-filter=app!=none", "--annotation-filter=external-dns.alpha.kubernetes.io/target notin (x)"},
			append([]diffPin{pins[0], pins[1], pins[2], pins[3],
				{onlyED: true, v021: true, re: regexp.MustCompile(`^p19\.`),
					why: "--label-filter on Proxies: external-dns v0.21's gloo source ignores it, v0.23 and zonekeeper apply it"}}, txt...), 30},
	}
	compareWithExternalDNS(t, base, sets)
}
