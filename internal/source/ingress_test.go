package source

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestIngressEndpoints(t *testing.T) {
	res := "res=ingress/default/web"
	lb := networkingv1.IngressLoadBalancerIngress{IP: "203.0.113.10"}
	withTLS := func(ing *networkingv1.Ingress, hosts ...string) *networkingv1.Ingress {
		ing.Spec.TLS = append(ing.Spec.TLS, networkingv1.IngressTLS{Hosts: hosts})
		return ing
	}
	withClass := func(ing *networkingv1.Ingress, class string) *networkingv1.Ingress {
		ing.Spec.IngressClassName = &class
		return ing
	}
	annHost := map[string]string{alpha + "hostname": "ann.example.com"}
	both := func() *networkingv1.Ingress {
		return withTLS(ingress("web", annHost, []string{"rule.example.com"}, lb), "tls.example.com")
	}
	cases := []struct {
		name string
		cfg  Config
		objs []runtime.Object
		want []string
	}{
		{"rules, tls and annotation", DefaultConfig(), []runtime.Object{both()}, []string{
			"ann.example.com A 203.0.113.10 " + res, "rule.example.com A 203.0.113.10 " + res, "tls.example.com A 203.0.113.10 " + res}},
		{"ignore rules spec", Config{IgnoreIngressRulesSpec: true}, []runtime.Object{both()}, []string{
			"ann.example.com A 203.0.113.10 " + res, "tls.example.com A 203.0.113.10 " + res}},
		{"ignore tls spec", Config{IgnoreIngressTLSSpec: true}, []runtime.Object{both()}, []string{
			"ann.example.com A 203.0.113.10 " + res, "rule.example.com A 203.0.113.10 " + res}},
		{"ignore hostname annotation (template not used: hosts exist)", Config{IgnoreHostnameAnnotation: true, FQDNTemplate: "{{.Name}}.tpl.example.com"},
			[]runtime.Object{both()}, []string{"rule.example.com A 203.0.113.10 " + res, "tls.example.com A 203.0.113.10 " + res}},
		{"hostname source annotation-only", DefaultConfig(), []runtime.Object{withTLS(ingress("web",
			map[string]string{alpha + "hostname": "ann.example.com", alpha + "ingress-hostname-source": "annotation-only"}, []string{"rule.example.com"}, lb), "tls.example.com")},
			[]string{"ann.example.com A 203.0.113.10 " + res}},
		{"hostname source defined-hosts-only", DefaultConfig(), []runtime.Object{ingress("web",
			map[string]string{ga + "hostname": "ann.example.com", ga + "ingress-hostname-source": "Defined-Hosts-Only"}, []string{"rule.example.com"}, lb)},
			[]string{"rule.example.com A 203.0.113.10 " + res}},
		{"status ip and hostname both used", DefaultConfig(), []runtime.Object{ingress("web", nil, []string{"rule.example.com"},
			networkingv1.IngressLoadBalancerIngress{IP: "203.0.113.10", Hostname: "lb.example.net"})},
			[]string{"rule.example.com A 203.0.113.10 " + res, "rule.example.com CNAME lb.example.net " + res}},
		{"target annotation overrides status", DefaultConfig(), []runtime.Object{ingress("web",
			map[string]string{alpha + "target": "edge.example.net"}, []string{"rule.example.com"}, lb)},
			[]string{"rule.example.com CNAME edge.example.net " + res}},
		{"no status, no records", DefaultConfig(), []runtime.Object{ingress("web", nil, []string{"rule.example.com"})}, nil},
		{"empty rule host skipped", DefaultConfig(), []runtime.Object{ingress("web", nil, []string{"", "rule.example.com"}, lb)},
			[]string{"rule.example.com A 203.0.113.10 " + res}},
		{"same host in rules and tls merged", DefaultConfig(), []runtime.Object{withTLS(ingress("web", nil, []string{"Rule.Example.com"}, lb), "rule.example.com")},
			[]string{"rule.example.com A 203.0.113.10 " + res}},
		{"ingress class by spec", Config{IngressClassNames: []string{"nginx"}}, []runtime.Object{
			withClass(ingress("web", nil, []string{"a.example.com"}, lb), "nginx"),
			withClass(ingress("other", nil, []string{"b.example.com"}, lb), "traefik")},
			[]string{"a.example.com A 203.0.113.10 " + res}},
		{"ingress class by annotation when spec is empty", Config{IngressClassNames: []string{"nginx", "internal"}}, []runtime.Object{
			ingress("web", map[string]string{"kubernetes.io/ingress.class": "internal"}, []string{"a.example.com"}, lb),
			ingress("other", map[string]string{"kubernetes.io/ingress.class": "traefik"}, []string{"b.example.com"}, lb),
			ingress("none", nil, []string{"c.example.com"}, lb)},
			[]string{"a.example.com A 203.0.113.10 " + res}},
		{"spec class wins over annotation", Config{IngressClassNames: []string{"nginx"}}, []runtime.Object{
			withClass(ingress("web", map[string]string{"kubernetes.io/ingress.class": "nginx"}, []string{"a.example.com"}, lb), "traefik")},
			nil},
		{"template when no hosts", Config{FQDNTemplate: `{{.Name}}.{{index .Labels "team"}}.example.com`}, []runtime.Object{func() runtime.Object {
			ing := ingress("web", nil, nil, lb)
			ing.Labels = map[string]string{"team": "blue"}
			return ing
		}()}, []string{"web.blue.example.com A 203.0.113.10 " + res}},
		{"combine template with hosts", Config{FQDNTemplate: "{{.Name}}.tpl.example.com", CombineFQDNAndAnnotation: true},
			[]runtime.Object{ingress("web", nil, []string{"rule.example.com"}, lb)},
			[]string{"rule.example.com A 203.0.113.10 " + res, "web.tpl.example.com A 203.0.113.10 " + res}},
		{"wildcard host", DefaultConfig(), []runtime.Object{ingress("web", nil, []string{"*.apps.example.com"}, lb)},
			[]string{"*.apps.example.com A 203.0.113.10 " + res}},
		{"internationalised host", DefaultConfig(), []runtime.Object{ingress("web", nil, []string{"bücher.example.com"}, lb)},
			[]string{"xn--bcher-kva.example.com A 203.0.113.10 " + res}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.cfg, tc.objs...)
			expectEndpoints(t, r.Endpoints, tc.want...)
			expectNoProblems(t, r)
		})
	}
}
