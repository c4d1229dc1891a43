package e2e

import (
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/ambassador"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// ambassadorFixture is the differential test's cluster: four load balancer Services (addresses, a
// hostname, external IPs over addresses, none) and 24 Hosts in default and team-a covering the Service
// annotation in each form (namespace/name, name.namespace, name, a bad one, a missing Service, none),
// the target annotation, ttl (good, bad), aws-weight, the hostname annotation
// (ignored by Hosts), the controller annotation, a label, a wildcard, a bad hostname, a Host without a
// hostname, v3alpha1 Hosts and two Hosts sharing a name.
func ambassadorFixture() []*unstructured.Unstructured {
	svc := func(ns, name string, externalIPs []string, lb ...string) *unstructured.Unstructured {
		spec := map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(443)}}}
		if len(externalIPs) > 0 {
			var ips []any
			for _, ip := range externalIPs {
				ips = append(ips, ip)
			}
			spec["externalIPs"] = ips
		}
		var status map[string]any
		if len(lb) > 0 {
			var ingress []any
			for _, a := range lb {
				k, v, _ := strings.Cut(a, "=")
				ingress = append(ingress, map[string]any{k: v})
			}
			status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
		}
		return sourcetest.Object("v1", "Service", ns, name, nil, spec, status)
	}
	out := []*unstructured.Unstructured{
		svc("ambassador", "edge", nil, "ip=192.0.2.1", "ip=2001:db8::1"),
		svc("default", "lb", nil, "hostname=lb.example.net"),
		svc("team-a", "fixed", []string{"198.51.100.7"}, "ip=192.0.2.9"),
		svc("team-a", "pending", nil),
	}
	mk := func(version, ns, name, hostname, ref string, labels map[string]string, kv ...string) {
		a := sourcetest.Annotations(kv...)
		if ref != "" {
			a[ambassador.ServiceAnnotation] = ref
		}
		spec := map[string]any{}
		if hostname != "" {
			spec["hostname"] = hostname
		}
		u := sourcetest.Object("getambassador.io/"+version, "Host", ns, name, a, spec, nil)
		u.SetLabels(labels)
		out = append(out, u)
	}
	mk("v2", "default", "a01", "a01.example.com", "ambassador/edge", nil)
	mk("v2", "default", "a02", "a02.example.com", "edge.ambassador", nil)
	mk("v2", "default", "a03", "a03.example.com", "lb", nil)
	mk("v2", "default", "a04", "a04.example.com", "lb", nil, "target", "203.0.113.4")
	mk("v2", "default", "a05", "a05.example.com", "", nil, "target", "203.0.113.5")
	mk("v2", "default", "a06", "a06.example.com", "a/b/c", nil)
	mk("v2", "default", "a07", "a07.example.com", "ambassador/nope", nil)
	mk("v2", "default", "a08", "", "ambassador/edge", nil)
	mk("v2", "default", "a09", "a09.example.com", "ambassador/edge", nil, "ttl", "120")
	mk("v2", "default", "a10", "a10.example.com", "ambassador/edge", nil, "ttl", "abc")
	mk("v2", "default", "a11", "a11.example.com", "ambassador/edge", nil, "hostname", "a11-ann.example.com")
	mk("v2", "default", "a12", "a12.example.com", "ambassador/edge", nil, "controller", "someone-else")
	mk("v2", "default", "a13", "*.a13.example.com", "ambassador/edge", nil)
	mk("v2", "default", "a14", "bad_name!.example.com", "ambassador/edge", nil)
	mk("v2", "default", "a15", "shared.example.com", "ambassador/edge", nil)
	mk("v2", "team-a", "a16", "shared.example.com", "fixed.team-a", nil)
	mk("v2", "team-a", "a17", "a17.example.com", "fixed", nil)
	mk("v2", "team-a", "a18", "a18.example.com", "team-a/fixed", map[string]string{"app": "none"})
	mk("v2", "team-a", "a19", "a19.example.com", "team-a/pending", nil)
	mk("v2", "team-a", "a20", "a20.example.com", "ambassador/edge", map[string]string{"app": "web"}, "ttl", "90")
	mk("v3alpha1", "team-a", "a21", "a21.example.com", "ambassador/edge", nil, "aws-weight", "10")
	mk("v3alpha1", "team-a", "a22", "a22.example.com", "team-a/fixed", nil, "target", "lb-a22.example.net.")
	mk("v3alpha1", "team-a", "a23", "A23.Example.com", "svc.foo.bar", nil)
	mk("v3alpha1", "team-a", "a24", "a24.example.com", "default/lb", nil, "ttl", "5m")
	return out
}

// TestAmbassadorSourceMatchesExternalDNS compares the ambassador-host source with external-dns's
// (v0.21.0 reads Hosts as v2, v0.23.0 as v3alpha1; zonekeeper as v2).
func TestAmbassadorSourceMatchesExternalDNS(t *testing.T) {
	base := crdCluster(t, testbed.InstallAmbassador, "ambassador-host", ambassadorFixture())
	pins := []diffPin{
		{onlyED: true, re: regexp.MustCompile(`^(a-|aaaa-)?bad_name!\.`),
			why: "a Host hostname that is not a DNS name: external-dns publishes it, zonekeeper reports it"},
		{onlyED: true, re: regexp.MustCompile(`^(a-|aaaa-)?\*\.a13\.`),
			why: "a wildcard name on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true},
		{onlyED: true, re: regexp.MustCompile(`^(a-|aaaa-)?a12\.`),
			why: "the controller annotation: external-dns's ambassador-host source ignores it, zonekeeper skips Hosts of another controller as every source does"},
		{optional: true, onlyED: true, re: regexp.MustCompile(`^(a-|aaaa-)shared\.`), why: "merged owner (external-dns)"},
		{optional: true, re: regexp.MustCompile(`^(a-|aaaa-)shared\.`), why: "merged owner (zonekeeper)"},
	}
	sets := []diffSet{
		{nil, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation"}, pins, 40},
		{[]string{"--namespace=team-a", "--label-filter=app!=none"}, []diffPin{pins[4]}, 10},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 6},
	}
	compareWithExternalDNS(t, base, sets)
}
