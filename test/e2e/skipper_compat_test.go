package e2e

import (
	"os"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/skipper/skippertest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// skipperFixture is the differential test's cluster: 25 RouteGroups in default and team-s covering
// spec.hosts (one, several, none), status.loadBalancer.routegroup (IPv4, IPv6, both, hostname, several,
// none), the target annotation (over the status, hostname, trailing dot), the hostname annotation
// (several names, a bad one, a wildcard, mixed case, GA prefix), ttl (seconds, duration, bad), the
// controller annotation, labels (for --label-filter) and two RouteGroups sharing a name. (The CRD allows
// only lower-case DNS names in spec.hosts: wildcards and bad names come from the annotation.)
func skipperFixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	mk := func(ns, name string, hosts, ips, lbNames []string, labels map[string]string, kv ...string) {
		out = append(out, skippertest.RouteGroup("zalando.org/v1", ns, name, hosts, ips, lbNames, labels, kv...))
	}
	l := func(s ...string) []string { return s }
	mk("default", "s01", l("s01.example.com"), l("192.0.2.1"), nil, nil)
	mk("default", "s02", l("s02.example.com"), l("192.0.2.2", "2001:db8::2"), nil, nil)
	mk("default", "s03", l("s03.example.com"), nil, l("lb-s03.example.net"), nil)
	mk("default", "s04", l("s04.example.com"), l("192.0.2.4", "192.0.2.40"), nil, nil, "ttl", "120")
	mk("default", "s05", l("s05.example.com"), l("192.0.2.5"), nil, nil, "target", "203.0.113.5")
	mk("default", "s06", l("s06.example.com"), nil, nil, nil, "target", "lb-s06.example.net.")
	mk("default", "s07", l("s07.example.com"), nil, nil, nil)
	mk("default", "s08", nil, l("192.0.2.8"), nil, nil)
	mk("default", "s09", nil, l("192.0.2.9"), nil, nil, "hostname", "s09a.example.com,s09b.example.com")
	mk("default", "s10", l("s10.example.com"), l("192.0.2.10"), nil, nil, "hostname", "s10-ann.example.com", "ttl", "5m")
	mk("default", "s11", l("s11.example.com"), l("192.0.2.11"), nil, nil, "ttl", "abc")
	mk("default", "s12", l("s12.example.com"), l("192.0.2.12"), nil, nil, "controller", "someone-else")
	mk("default", "s13", l("s13.example.com"), l("192.0.2.13"), nil, nil, "hostname", "bad_name!.example.com,s13-ann.example.com")
	mk("default", "s14", l("s14.example.com"), l("192.0.2.14"), nil, nil, "hostname", "*.s14.example.com")
	mk("default", "s15", l("s15.example.com"), l("192.0.2.15"), nil, nil, "hostname", "S15-Mixed.Example.com.")
	mk("default", "s16", l("shared.example.com"), l("192.0.2.16"), nil, nil)
	mk("team-s", "s17", l("shared.example.com"), l("192.0.2.17"), nil, nil)
	mk("team-s", "s18", l("s18.example.com", "s18b.example.com"), l("2001:db8::18"), nil, nil)
	mk("team-s", "s19", l("s19.example.com"), l("192.0.2.19"), nil, nil, "external-dns.kubernetes.io/hostname", "s19-ga.example.com")
	mk("team-s", "s20", l("s20.example.com"), l("192.0.2.20"), nil, map[string]string{"app": "none"})
	mk("team-s", "s21", l("s21.example.com"), nil, l("lb-s21.example.net"), nil, "ttl", "60", "aws-weight", "10")
	mk("team-s", "s22", nil, l("192.0.2.22"), nil, nil, "target", "lb-s22.example.net")
	mk("team-s", "s23", l("s23.example.com"), l("192.0.2.23"), nil, map[string]string{"app": "web"}, "ttl", "90")
	mk("team-s", "s24", nil, nil, nil, nil)
	mk("team-s", "s25", l("s25.example.com", "s25b.example.com", "s25c.example.com"), l("192.0.2.25", "192.0.2.26"), nil, nil)
	return out
}

// TestSkipperSourceMatchesExternalDNS compares the skipper-routegroup source with external-dns's, which
// lists RouteGroups over HTTPS itself and verifies the API server against the system roots: its
// SSL_CERT_FILE is the test API server's certificate.
func TestSkipperSourceMatchesExternalDNS(t *testing.T) {
	kube, base := crdClusterServer(t, testbed.InstallSkipper, "skipper-routegroup", skipperFixture())
	if _, err := os.Stat(kube.ServingCertFile()); err != nil {
		t.Fatalf("the API server's certificate: %v", err)
	}
	peerEnv := []string{"SSL_CERT_FILE=" + kube.ServingCertFile()}
	pins := []diffPin{
		{onlyED: true, re: regexp.MustCompile(`^(a-)?bad_name!\.`),
			why: "a hostname annotation name that is not a DNS name: external-dns publishes it, zonekeeper reports it"},
		{onlyED: true, re: regexp.MustCompile(`^(a-)?\*\.s14\.`),
			why: "a wildcard name on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true},
		{v021: true, re: regexp.MustCompile(`^(a-)?s19-ga\.`),
			why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix, v0.23 and zonekeeper both"},
		{optional: true, onlyED: true, re: regexp.MustCompile(`^a-shared\.`), why: "merged owner (external-dns)"},
		{optional: true, re: regexp.MustCompile(`^a-shared\.`), why: "merged owner (zonekeeper)"},
	}
	labelPin := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^(a-)?s20\.`),
		why: "--label-filter: external-dns v0.21's skipper source ignores it, v0.23 and zonekeeper apply it"}
	sets := []diffSet{
		{nil, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.{{.Namespace}}.tmpl.example.com"}, pins, 40},
		{[]string{"--fqdn-template={{.Metadata.Name}}.meta.example.com,{{.Metadata.Namespace}}-{{.Name}}.two.example.com"}, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"},
			[]diffPin{pins[3], pins[4]}, 40},
		{[]string{"--fqdn-template={{range $i, $h := .Spec.Hosts}}{{if $i}},{{end}}{{$h}}.alias.example.com{{end}}", "--combine-fqdn-annotation"},
			pins, 40},
		{[]string{"--namespace=team-s", "--label-filter=app!=none"}, []diffPin{pins[2], pins[4], labelPin}, 10},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 8},
	}
	compareWithExternalDNSEnv(t, base, peerEnv, sets)
}
