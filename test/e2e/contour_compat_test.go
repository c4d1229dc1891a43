package e2e

import (
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// contourFixture is the differential test's cluster: 24 HTTPProxies in default and team-a covering
// spec.virtualhost.fqdn (set, wildcard, none: an included proxy), status.loadBalancer (IPv4, IPv6, both,
// hostname, several, none), the target annotation (over the status, hostname, trailing dot), the
// hostname annotation (several names, a bad one, mixed case, GA prefix), ttl (seconds, duration, bad),
// the controller annotation, a label (for --label-filter) and two proxies sharing a name.
func contourFixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	mk := func(ns, name, fqdn string, ips, hostnames []string, labels map[string]string, kv ...string) {
		spec := map[string]any{}
		if fqdn != "" {
			spec["virtualhost"] = map[string]any{"fqdn": fqdn}
		}
		var ingress []any
		for _, ip := range ips {
			ingress = append(ingress, map[string]any{"ip": ip})
		}
		for _, h := range hostnames {
			ingress = append(ingress, map[string]any{"hostname": h})
		}
		var status map[string]any
		if len(ingress) > 0 {
			status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
		}
		u := sourcetest.Object("projectcontour.io/v1", "HTTPProxy", ns, name, sourcetest.Annotations(kv...), spec, status)
		u.SetLabels(labels)
		out = append(out, u)
	}
	ip := func(s ...string) []string { return s }
	mk("default", "c01", "c01.example.com", ip("192.0.2.1"), nil, nil)
	mk("default", "c02", "c02.example.com", ip("192.0.2.2", "2001:db8::2"), nil, nil)
	mk("default", "c03", "c03.example.com", nil, ip("lb-c03.example.net"), nil)
	mk("default", "c04", "c04.example.com", ip("192.0.2.4", "192.0.2.40"), nil, nil, "ttl", "120")
	mk("default", "c05", "c05.example.com", ip("192.0.2.5"), nil, nil, "target", "203.0.113.5")
	mk("default", "c06", "c06.example.com", nil, nil, nil, "target", "lb-c06.example.net.")
	mk("default", "c07", "c07.example.com", nil, nil, nil)
	mk("default", "c08", "", ip("192.0.2.8"), nil, nil)
	mk("default", "c09", "", ip("192.0.2.9"), nil, nil, "hostname", "c09a.example.com,c09b.example.com")
	mk("default", "c10", "c10.example.com", ip("192.0.2.10"), nil, nil, "hostname", "c10-ann.example.com", "ttl", "5m")
	mk("default", "c11", "c11.example.com", ip("192.0.2.11"), nil, nil, "ttl", "abc")
	mk("default", "c12", "c12.example.com", ip("192.0.2.12"), nil, nil, "controller", "someone-else")
	mk("default", "c13", "c13.example.com", ip("192.0.2.13"), nil, nil, "hostname", "bad_name!.example.com,c13-ann.example.com")
	mk("default", "c14", "*.c14.example.com", ip("192.0.2.14"), nil, nil)
	mk("default", "c15", "c15.example.com", ip("192.0.2.15"), nil, nil, "hostname", "C15-Mixed.Example.com.")
	mk("default", "c16", "shared.example.com", ip("192.0.2.16"), nil, nil)
	mk("team-a", "c17", "shared.example.com", ip("192.0.2.17"), nil, nil)
	mk("team-a", "c18", "c18.example.com", ip("2001:db8::18"), nil, nil)
	mk("team-a", "c19", "c19.example.com", ip("192.0.2.19"), nil, nil, "external-dns.kubernetes.io/hostname", "c19-ga.example.com")
	mk("team-a", "c20", "c20.example.com", ip("192.0.2.20"), nil, map[string]string{"app": "none"})
	mk("team-a", "c21", "c21.example.com", nil, ip("lb-c21.example.net"), nil, "ttl", "60", "aws-weight", "10")
	mk("team-a", "c22", "", ip("192.0.2.22"), nil, nil, "target", "lb-c22.example.net")
	mk("team-a", "c23", "c23.example.com", ip("192.0.2.23"), nil, map[string]string{"app": "web"}, "ttl", "90")
	mk("team-a", "c24", "", nil, nil, nil, "hostname", "c24.example.com")
	return out
}

// TestContourSourceMatchesExternalDNS compares the contour-httpproxy source with external-dns's.
func TestContourSourceMatchesExternalDNS(t *testing.T) {
	base := crdCluster(t, testbed.InstallContour, "contour-httpproxy", contourFixture())
	pins := []diffPin{
		{onlyED: true, re: regexp.MustCompile(`^(a-)?bad_name!\.`),
			why: "a hostname annotation name that is not a DNS name: external-dns publishes it, zonekeeper reports it"},
		{onlyED: true, re: regexp.MustCompile(`^(a-)?\*\.c14\.`),
			why: "a wildcard name on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true},
		{v021: true, re: regexp.MustCompile(`^(a-)?c19-ga\.`),
			why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix, v0.23 and zonekeeper both"},
		{optional: true, onlyED: true, re: regexp.MustCompile(`^a-shared\.`), why: "merged owner (external-dns)"},
		{optional: true, re: regexp.MustCompile(`^a-shared\.`), why: "merged owner (zonekeeper)"},
	}
	labelPin := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^(a-)?c20\.`),
		why: "--label-filter: external-dns v0.21's contour source ignores it, v0.23 and zonekeeper apply it"}
	sets := []diffSet{
		{nil, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.{{.Namespace}}.tmpl.example.com"}, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"},
			[]diffPin{pins[1], pins[3], pins[4]}, 40},
		{[]string{"--namespace=team-a", "--label-filter=app!=none"}, []diffPin{pins[2], pins[4], labelPin}, 10},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 8},
	}
	compareWithExternalDNS(t, base, sets)
}
