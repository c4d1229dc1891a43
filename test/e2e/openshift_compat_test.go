package e2e

import (
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/openshift/openshifttest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// openshiftFixture is the differential test's cluster: 24 Routes in default and team-a covering
// status.ingress (one router, several, not admitted, no condition, no canonical hostname, a host other
// than spec.host, a wildcard host, a host that is not a DNS name), the routers --openshift-router-name
// picks, the target annotation (IP, both families, hostname), the hostname annotation (with and without
// status, mixed case, GA prefix), ttl (seconds, bad), the controller annotation, labels, and two Routes
// sharing a name.
// routerEntry is one status.ingress entry of a Route.
type routerEntry = openshifttest.Entry

func openshiftFixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	def, ext, in := "router-default.apps.example.net", "router-ext.apps.example.net", "router-int.apps.example.net"
	mk := func(ns, name, host string, entries []routerEntry, labels map[string]string, kv ...string) {
		out = append(out, openshifttest.Route(ns, name, host, entries, labels, kv...))
	}
	one := func(host, router, canonical string) []routerEntry {
		return []routerEntry{{host, router, canonical, "True"}}
	}
	mk("default", "o01", "o01.example.com", one("o01.example.com", "default", def), nil)
	mk("default", "o02", "o02-spec.example.com", one("o02-status.example.com", "default", def), nil)
	mk("default", "o03", "o03.example.com", []routerEntry{{"o03.example.com", "default", def, "False"}, {"o03-ext.example.com", "ext", ext, "True"}}, nil)
	mk("default", "o04", "o04.example.com", []routerEntry{{"o04.example.com", "default", def, ""}}, nil)
	mk("default", "o05", "o05.example.com", []routerEntry{{"o05.example.com", "default", "", "True"}}, nil)
	mk("default", "o06", "o06.example.com", one("o06.example.com", "default", def), nil, "target", "192.0.2.6")
	mk("default", "o07", "", nil, nil, "target", "lb-o07.example.net", "hostname", "o07.example.com")
	mk("default", "o08", "o08.example.com", one("o08.example.com", "default", def), nil, "hostname", "o08-ann.example.com,o08-ann2.example.com")
	mk("default", "o09", "o09.example.com", one("o09.example.com", "default", def), nil, "ttl", "120")
	mk("default", "o10", "o10.example.com", one("o10.example.com", "default", def), nil, "ttl", "abc")
	mk("default", "o11", "o11.example.com", one("o11.example.com", "default", def), nil, "controller", "someone-else")
	mk("default", "o12", "o12.example.com", one("bad_name!.example.com", "default", def), nil, "hostname", "o12-ann.example.com")
	mk("default", "o13", "o13.example.com", []routerEntry{{"o13.example.com", "default", def, "True"}, {"o13-ext.example.com", "ext", ext, "True"},
		{"o13-int.example.com", "int", in, "True"}}, nil)
	mk("default", "o14", "o14.example.com", one("o14.example.com", "ext", ext), nil)
	mk("default", "o15", "o15.example.com", one("o15.example.com", "default", def), map[string]string{"app": "none"})
	mk("default", "o16", "shared.example.com", one("shared.example.com", "default", def), nil)
	mk("team-a", "o17", "shared.example.com", one("shared.example.com", "default", def), nil)
	mk("team-a", "o18", "o18.example.com", one("o18.example.com", "int", in), nil, "external-dns.kubernetes.io/hostname", "o18-ga.example.com")
	mk("team-a", "o19", "", nil, nil, "target", "192.0.2.19,2001:db8::19", "hostname", "O19-Mixed.Example.com.")
	mk("team-a", "o20", "o20.example.com", one("o20.example.com", "int", in), map[string]string{"app": "web"}, "ttl", "60")
	mk("team-a", "o21", "", nil, nil)
	mk("team-a", "o22", "", nil, nil, "target", "192.0.2.22")
	mk("team-a", "o23", "o23.wild.example.com", []routerEntry{{"*.wild.example.com", "default", def, "True"}}, nil)
	mk("team-a", "o24", "o24.example.com", one("o24.example.com", "int", in), nil, "aws-weight", "10", "set-identifier", "")
	return out
}

// TestOpenShiftSourceMatchesExternalDNS compares the openshift-route source with external-dns's.
func TestOpenShiftSourceMatchesExternalDNS(t *testing.T) {
	base := crdCluster(t, testbed.InstallOpenShiftRoutes, "openshift-route", openshiftFixture())
	bad := diffPin{onlyED: true, re: regexp.MustCompile(`^(cname-)?bad_name!\.`),
		why: "a status host that is not a DNS name: external-dns publishes it, zonekeeper reports it"}
	wild := diffPin{onlyED: true, re: regexp.MustCompile(`^(cname-)?\*\.wild\.`),
		why: "a wildcard host on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true}
	ga := diffPin{v021: true, re: regexp.MustCompile(`^(cname-)?o18-ga\.`),
		why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix, v0.23 and zonekeeper both"}
	owner := []diffPin{
		{optional: true, onlyED: true, re: regexp.MustCompile(`^cname-shared\.`), why: "merged owner (external-dns)"},
		{optional: true, re: regexp.MustCompile(`^cname-shared\.`), why: "merged owner (zonekeeper)"},
	}
	pins := append([]diffPin{bad, wild, ga}, owner...)
	sets := []diffSet{
		{nil, pins, 40},
		{[]string{"--openshift-router-name=int"}, []diffPin{ga}, 8},
		{[]string{"--fqdn-template={{.Spec.To.Name}}.{{.Namespace}}.tmpl.example.com"}, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"},
			append([]diffPin{bad, wild}, owner...), 40},
		{[]string{"--namespace=team-a", "--label-filter=app!=none"}, append([]diffPin{wild, ga}, owner[1]), 8},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 4},
	}
	compareWithExternalDNS(t, base, sets)
}
