package e2e

import (
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// traefikFixture is the differential test's cluster: per kind (IngressRoute, IngressRouteTCP,
// IngressRouteUDP), 23 routes of the traefik.io group in default and team-a, and 3 of the legacy
// traefik.containo.us group, covering Host, HostHeader and HostSNI rules with several hosts
// (Host(`a`,`b`), ||), HostSNI(`*`), a wildcard host, HostRegexp, rules without hosts, target annotations (IPv4, IPv6,
// both, hostname, trailing dot, none), the hostname annotation (several names, mixed case, GA prefix),
// ttl (seconds, duration, bad), a name that is not a DNS name, the controller annotation, and two routes
// sharing a name. UDP routes have no rules: their names come from the hostname annotation.
func traefikFixture() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, kind := range []string{"IngressRoute", "IngressRouteTCP", "IngressRouteUDP"} {
		p := strings.ToLower(strings.TrimPrefix(kind, "IngressRoute"))
		if p == "" {
			p = "http"
		}
		matcher := "Host"
		if kind == "IngressRouteTCP" {
			matcher = "HostSNI"
		}
		h := func(n string) string { return n + "-" + p + ".example.com" }
		m := func(hosts ...string) string { // Host(`a`, `b`)
			return matcher + "(`" + strings.Join(hosts, "`, `") + "`)"
		}
		mk := func(group, ns, name string, rules []string, kv ...string) {
			a := sourcetest.Annotations(kv...)
			var routes []any
			for _, r := range rules {
				routes = append(routes, map[string]any{"match": r})
			}
			switch {
			case kind == "IngressRouteUDP":
				// A UDP route matches no host: the hosts of its rules go to the hostname annotation.
				var hosts []string
				for _, r := range rules {
					for _, q := range regexp.MustCompile("`([^`,]+)`").FindAllStringSubmatch(r, -1) {
						if q[1] != "*" && !strings.HasPrefix(q[1], "/") && !strings.HasPrefix(q[1], "^") {
							hosts = append(hosts, q[1])
						}
					}
				}
				if len(hosts) > 0 && a[sourcetest.AnnotationPrefix+"hostname"] == "" {
					a[sourcetest.AnnotationPrefix+"hostname"] = strings.Join(hosts, ",")
				}
				routes = []any{map[string]any{"services": []any{map[string]any{"name": "svc", "port": int64(53)}}}}
			case len(routes) == 0:
				routes = []any{map[string]any{"match": "PathPrefix(`/`)"}}
			}
			out = append(out, sourcetest.Object(group+"/v1alpha1", kind, ns, name, a, map[string]any{"routes": routes}, nil))
		}
		one := func(r string) []string { return []string{r} }
		const io, old = "traefik.io", "traefik.containo.us"
		mk(io, "default", "t01", one(m(h("t01"))), "target", "192.0.2.1")
		mk(io, "default", "t02", one(m(h("t02a"), h("t02b"))+" && PathPrefix(`/api`)"), "target", "192.0.2.2")
		mk(io, "default", "t03", one(m(h("t03a"))+" || "+m(h("t03b"))), "target", "192.0.2.3,2001:db8::3")
		mk(io, "default", "t04", []string{m(h("t04a")), m(h("t04b"))}, "target", "lb-"+p+".example.net")
		mk(io, "default", "t05", one(m(h("t05"))), "target", "192.0.2.5", "ttl", "120")
		mk(io, "default", "t06", one(m(h("t06"))), "target", "192.0.2.6", "ttl", "abc")
		mk(io, "default", "t07", one(m(h("t07"))))
		mk(io, "default", "t08", one(m(h("t08"))), "target", "192.0.2.8", "hostname", h("t08-ann"))
		mk(io, "default", "t09", nil, "target", "192.0.2.9", "hostname", h("t09a")+","+h("t09b"))
		mk(io, "default", "t10", one(m("ctrl-"+p+".example.com")), "target", "192.0.2.10", "controller", "someone-else")
		mk(io, "default", "t11", one(m(h("t11"))), "target", "2001:db8::11", "ttl", "5m")
		mk(io, "default", "t12", one(m("bad_name!-"+p+".example.com", h("t12"))), "target", "192.0.2.12")
		mk(io, "default", "t13", one("HostSNI(`*`)"), "target", "192.0.2.13", "hostname", h("t13"))
		mk(io, "default", "t14", one("HostHeader(`"+h("t14")+"`)"), "target", "192.0.2.14")
		mk(io, "default", "t15", one("HostRegexp(`^.+\\.example\\.com$`) && PathPrefix(`/`)"), "target", "192.0.2.15")
		mk(io, "default", "t16", nil, "target", "192.0.2.16", "hostname", "T16-Mixed-"+p+".Example.com.")
		mk(io, "default", "t17", one(m("shared-"+p+".example.com")), "target", "192.0.2.17")
		mk(io, "team-a", "t18", one(m("shared-"+p+".example.com")), "target", "192.0.2.18")
		mk(io, "team-a", "t19", one(m(h("t19"))), "external-dns.kubernetes.io/target", "192.0.2.19", "external-dns.kubernetes.io/hostname", h("t19-ga"))
		mk(io, "team-a", "t20", one(m(h("t20"))), "target", "lb-t20-"+p+".example.net.")
		mk(io, "team-a", "t21", one(m(h("t21"))+" && ClientIP(`10.0.0.0/8`)"), "target", "192.0.2.21", "ttl", "60")
		mk(io, "team-a", "t22", one("Host(`"+h("t22a")+"`,`"+h("t22b")+"`)"), "target", "192.0.2.22", "aws-weight", "10")
		mk(io, "team-a", "t23", one(m("*.wild-"+p+".example.com")), "target", "192.0.2.23")
		mk(old, "default", "l01", one(m(h("l01"))), "target", "198.51.100.1")
		mk(old, "team-a", "l02", one(m(h("l02a"), h("l02b"))), "target", "lb-legacy-"+p+".example.net", "ttl", "90")
		mk(old, "team-a", "l03", one(m(h("l03"))))
	}
	return out
}

// TestTraefikSourceMatchesExternalDNS compares the traefik-proxy source with external-dns's.
func TestTraefikSourceMatchesExternalDNS(t *testing.T) {
	install := func(t testing.TB, k *testbed.KubeAPIServer) []string { return testbed.InstallTraefik(t, k, true) }
	base := crdCluster(t, install, "traefik-proxy", traefikFixture())
	ctrl := diffPin{onlyED: true, v021: true, re: regexp.MustCompile(`^(a-|cname-)?ctrl-`),
		why: "the controller annotation: external-dns v0.21's traefik source ignores it, v0.23 and zonekeeper honour it"}
	tmpl := diffPin{re: regexp.MustCompile(`\.tmpl\.example\.com$`),
		why: "--fqdn-template: external-dns's traefik source ignores it, zonekeeper names routes without names from it"}
	pins := []diffPin{
		{onlyED: true, re: regexp.MustCompile(`^(a-)?bad_name!-`),
			why: "a rule host that is not a DNS name: external-dns publishes it, zonekeeper reports it"},
		{v021: true, re: regexp.MustCompile(`^(a-)?t19-`),
			why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix, v0.23 and zonekeeper both"},
		// Two routes asking for one name: external-dns labels the merged record with the route its
		// informer lists first (random), zonekeeper with the first in namespace/name order.
		{onlyED: true, re: regexp.MustCompile(`^(a-)?\*\.wild-`),
			why: "a wildcard host on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it", refused: true},
		{optional: true, onlyED: true, re: regexp.MustCompile(`^a-shared-`), why: "merged owner (external-dns)"},
		{optional: true, re: regexp.MustCompile(`^a-shared-`), why: "merged owner (zonekeeper)"},
	}
	with := func(extra ...diffPin) []diffPin { return append(append([]diffPin(nil), pins...), extra...) }
	sets := []diffSet{
		{nil, with(ctrl), 100},
		{[]string{"--traefik-enable-legacy"}, with(ctrl), 100},
		{[]string{"--traefik-enable-legacy", "--traefik-disable-new", "--namespace=team-a"}, nil, 5},
		{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 10},
		{[]string{"--fqdn-template={{.Name}}.{{.Kind}}.tmpl.example.com", "--ignore-hostname-annotation", "--namespace=team-a"},
			[]diffPin{tmpl, pins[1], pins[2]}, 10},
		{[]string{"--fqdn-template={{.Name}}.{{.Kind}}.tmpl.example.com", "--combine-fqdn-annotation"}, with(ctrl, tmpl), 100},
	}
	compareWithExternalDNS(t, base, sets)
}
