package e2e

import (
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/kong/kongtest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// kongFixture is the differential test's cluster: 24 TCPIngresses in default and team-k covering
// spec.rules[].host (one, several, a port-only rule, wildcard, not a DNS name, none at all),
// status.loadBalancer (IPv4, IPv6, both, hostname, several, none), the target annotation (over the
// status, hostname, trailing dot), the hostname annotation (several names, a bad one, mixed case, GA
// prefix), ttl (seconds, duration, bad), the controller annotation, labels (for --label-filter) and two
// TCPIngresses sharing a name.
func kongFixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	mk := func(ns, name string, hosts, ips, lbNames []string, labels map[string]string, kv ...string) {
		out = append(out, kongtest.TCPIngress(ns, name, hosts, ips, lbNames, labels, kv...))
	}
	l := func(s ...string) []string { return s }
	mk("default", "k01", l("k01.example.com"), l("192.0.2.1"), nil, nil)
	mk("default", "k02", l("k02.example.com"), l("192.0.2.2", "2001:db8::2"), nil, nil)
	mk("default", "k03", l("k03.example.com"), nil, l("lb-k03.example.net"), nil)
	mk("default", "k04", l("k04.example.com"), l("192.0.2.4", "192.0.2.40"), nil, nil, "ttl", "120")
	mk("default", "k05", l("k05.example.com"), l("192.0.2.5"), nil, nil, "target", "203.0.113.5")
	mk("default", "k06", l("k06.example.com"), nil, nil, nil, "target", "lb-k06.example.net.")
	mk("default", "k07", l("k07.example.com"), nil, nil, nil)
	mk("default", "k08", l(""), l("192.0.2.8"), nil, nil)
	mk("default", "k09", l(""), l("192.0.2.9"), nil, nil, "hostname", "k09a.example.com,k09b.example.com")
	mk("default", "k10", l("k10.example.com"), l("192.0.2.10"), nil, nil, "hostname", "k10-ann.example.com", "ttl", "5m")
	mk("default", "k11", l("k11.example.com"), l("192.0.2.11"), nil, nil, "ttl", "abc")
	mk("default", "k12", l("k12.example.com"), l("192.0.2.12"), nil, nil, "controller", "someone-else")
	mk("default", "k13", l("k13.example.com"), l("192.0.2.13"), nil, nil, "hostname", "bad_name!.example.com,k13-ann.example.com")
	mk("default", "k14", l("*.k14.example.com", "k14.example.com"), l("192.0.2.14"), nil, nil)
	mk("default", "k15", l("k15.example.com"), l("192.0.2.15"), nil, nil, "hostname", "K15-Mixed.Example.com.")
	mk("default", "k16", l("shared.example.com"), l("192.0.2.16"), nil, nil)
	mk("team-k", "k17", l("shared.example.com"), l("192.0.2.17"), nil, nil)
	mk("team-k", "k18", l("k18.example.com", "", "k18b.example.com"), l("2001:db8::18"), nil, nil)
	mk("team-k", "k19", l("k19.example.com"), l("192.0.2.19"), nil, nil, "external-dns.kubernetes.io/hostname", "k19-ga.example.com")
	mk("team-k", "k20", l("k20.example.com"), l("192.0.2.20"), nil, map[string]string{"app": "none"})
	mk("team-k", "k21", l("k21.example.com"), nil, l("lb-k21.example.net"), nil, "ttl", "60", "aws-weight", "10")
	mk("team-k", "k22", l("K22.Example.com"), l("192.0.2.22"), nil, nil, "target", "lb-k22.example.net")
	mk("team-k", "k23", l("k23.example.com"), l("192.0.2.23"), nil, map[string]string{"app": "db"}, "ttl", "90")
	mk("team-k", "k24", l("bad_rule!.example.com", "k24.example.com"), l("192.0.2.24"), nil, nil)
	mk("team-k", "k25", nil, l("192.0.2.25"), nil, nil, "hostname", "k25.example.com")
	return out
}

// TestKongSourceMatchesExternalDNS compares the kong-tcpingress source with external-dns's.
func TestKongSourceMatchesExternalDNS(t *testing.T) {
	base := crdCluster(t, testbed.InstallKong, "kong-tcpingress", kongFixture())
	pins := []diffPin{
		{onlyED: true, re: regexp.MustCompile(`^(a-)?bad_(name|rule)!\.`),
			why: "a rule host or hostname annotation name that is not a DNS name: external-dns publishes it, zonekeeper reports it"},
		{onlyED: true, re: regexp.MustCompile(`^(a-)?\*\.k14\.`),
			why: "a wildcard name on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true},
		{v021: true, re: regexp.MustCompile(`^(a-)?k19-ga\.`),
			why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix, v0.23 and zonekeeper both"},
		{v021: true, onlyED: true, re: regexp.MustCompile(`^(a-)?k12\.`),
			why: "the controller annotation: external-dns v0.21's kong source ignores it, v0.23 and zonekeeper skip the TCPIngress"},
		{optional: true, onlyED: true, re: regexp.MustCompile(`^a-shared\.`), why: "merged owner (external-dns)"},
		{optional: true, re: regexp.MustCompile(`^a-shared\.`), why: "merged owner (zonekeeper)"},
	}
	labelPin := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^((a|aaaa|cname)-)?(shared|k18b?|k19|k2[01245]|bad_rule!)\.`),
		why: "--label-filter: external-dns v0.21's kong source ignores it, v0.23 and zonekeeper apply it"}
	sets := []diffSet{
		{nil, pins, 40},
		// external-dns's kong source ignores --fqdn-template, and so does zonekeeper's: no new names.
		{[]string{"--fqdn-template={{.Name}}.{{.Namespace}}.tmpl.example.com"}, pins, 40},
		{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"},
			[]diffPin{pins[0], pins[1], pins[3], pins[4], pins[5]}, 40},
		{[]string{"--namespace=team-k", "--label-filter=app=db"}, []diffPin{labelPin}, 2},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 8},
	}
	compareWithExternalDNS(t, base, sets)
}
