package source

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// The objects the template tests share: a LoadBalancer service with a hostname annotation and one
// without, a node, and a pod.
func templateService(name string, ann map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: ann, Labels: map[string]string{"tier": "web"}},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.0.0.10"},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{
			Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}},
		}},
	}
}

func compiledFor(t *testing.T, cfg Config) *compiled {
	t.Helper()
	c, err := compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFQDNTargetTemplateOnServices: the pairs, split at the first colon (IPv6 targets), A/AAAA/CNAME
// by target, merged; only for services without records unless combining; before --fqdn-template,
// which then only runs when the pairs made nothing (external-dns v0.23's order); a repeated flag
// arrives joined with a comma and gives both.
func TestFQDNTargetTemplateOnServices(t *testing.T) {
	named := templateService("named", map[string]string{ga + "hostname": "named.example.com"})
	plain := templateService("plain", map[string]string{ga + "ttl": "60"})
	pairs := "{{.Name}}.pairs.example.com:{{.Spec.ClusterIP}},{{.Name}}.pairs.example.com:2001:db8::1," +
		"{{.Name}}.{{.Kind}}.example.com:lb.example.net.,{{.Name}}.pairs.example.com:{{.Spec.ClusterIP}}"
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"pairs only where no record", Config{FQDNTargetTemplate: pairs}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"plain.pairs.example.com A 10.0.0.10 ttl=60 res=service/default/plain",
			"plain.pairs.example.com AAAA 2001:db8::1 ttl=60 res=service/default/plain",
			"plain.service.example.com CNAME lb.example.net ttl=60 res=service/default/plain",
		}},
		{"combined", Config{FQDNTargetTemplate: "{{.Name}}.p.example.com:{{.Spec.ClusterIP}}", CombineFQDNAndAnnotation: true}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"named.p.example.com A 10.0.0.10 res=service/default/named",
			"plain.p.example.com A 10.0.0.10 ttl=60 res=service/default/plain",
		}},
		{"pairs win over --fqdn-template", Config{FQDNTargetTemplate: "{{.Name}}.p.example.com:{{.Spec.ClusterIP}}", FQDNTemplate: "{{.Name}}.f.example.com"}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"plain.p.example.com A 10.0.0.10 ttl=60 res=service/default/plain",
		}},
		{"--fqdn-template when the pairs make nothing", Config{FQDNTargetTemplate: `{{if eq .Name "none"}}x.example.com:10.0.0.1{{end}}`, FQDNTemplate: "{{.Name}}.f.example.com"}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"plain.f.example.com A 192.0.2.10 ttl=60 res=service/default/plain",
		}},
		{"all combined", Config{FQDNTargetTemplate: "{{.Name}}.p.example.com:{{.Spec.ClusterIP}}", FQDNTemplate: "{{.Name}}.f.example.com", CombineFQDNAndAnnotation: true}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"named.f.example.com A 192.0.2.10 res=service/default/named",
			"named.p.example.com A 10.0.0.10 res=service/default/named",
			"plain.f.example.com A 192.0.2.10 ttl=60 res=service/default/plain",
			"plain.p.example.com A 10.0.0.10 ttl=60 res=service/default/plain",
		}},
		{"--target-template does not apply to services", Config{TargetTemplate: "203.0.113.1", FQDNTemplate: "{{.Name}}.f.example.com"}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"plain.f.example.com A 192.0.2.10 ttl=60 res=service/default/plain",
		}},
		{"JSON field names (external-dns v0.23's retry) and v0.23's functions", Config{
			FQDNTargetTemplate: `{{if hasKey .Labels "tier"}}{{.Name}}.j.example.com:{{.Spec.clusterIP}}{{end}}`}, []string{
			"named.example.com A 192.0.2.10 res=service/default/named",
			"plain.j.example.com A 10.0.0.10 ttl=60 res=service/default/plain",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.cfg, named, plain)
			expectEndpoints(t, r.Endpoints, tc.want...)
			for _, p := range r.Problems {
				if strings.Contains(p.Field, "template") {
					t.Errorf("problem: %+v", p)
				}
			}
		})
	}
}

// TestTemplateErrorsAreProblemsOnTheObject: a template failing on one object, a value that is no
// pair, a bad host and a bad target are Problems naming the object and the flag; the other objects
// are published; a template that does not parse stops startup naming the flag.
func TestTemplateErrorsAreProblemsOnTheObject(t *testing.T) {
	good := templateService("good", nil)
	good.Labels["ip"] = "10.0.0.1"
	bad := templateService("bad", nil)
	r := run(t, Config{FQDNTargetTemplate: `{{.Name}}.example.com:{{.Labels.ip}},` +
		`nocolon.example.com,bad_host!.example.com:10.0.0.1,{{.Name}}.t.example.com:not a target`}, good, bad)
	expectEndpoints(t, r.Endpoints, "good.example.com A 10.0.0.1 res=service/default/good")
	goodRef := endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "good"}
	badRef := endpoint.ObjectRef{Kind: "Service", Namespace: "default", Name: "bad"}
	if p := findProblem(t, r, badRef, "--fqdn-target-template"); !strings.Contains(p.Reason, `map has no entry for key "ip"`) {
		t.Errorf("the failing template's problem: %+v", p)
	}
	var values []string
	for _, p := range r.Problems {
		if p.Object == goodRef && p.Field == "--fqdn-target-template" {
			values = append(values, p.Value)
		}
	}
	if strings.Join(values, "|") != "nocolon.example.com|bad_host!.example.com:10.0.0.1|not a target" {
		t.Errorf("problems on the good service: %q", values)
	}
	for _, flag := range []string{"--target-template", "--fqdn-target-template", "--fqdn-template"} {
		cfg := Config{}
		switch flag {
		case "--target-template":
			cfg.TargetTemplate = "{{.Name"
		case "--fqdn-target-template":
			cfg.FQDNTargetTemplate = "{{.Name"
		default:
			cfg.FQDNTemplate = "{{.Name"
		}
		if _, err := compile(cfg); err == nil || !strings.HasPrefix(err.Error(), flag+" ") {
			t.Errorf("%s that does not parse: %v", flag, err)
		}
	}
}

// TestFQDNTargetTemplateOnNodesAndPods: on nodes a name template replaces the node's name unless
// combining, the pairs come before --fqdn-template; --target-template alone changes nothing; on pods
// the pairs apply to pods without records.
func TestFQDNTargetTemplateOnNodesAndPods(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1.example.com"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}}}}
	nodeName := "n1.example.com A 203.0.113.1 res=node/n1.example.com"
	pairs := "{{.Name}}.p.example.org:{{(index .Status.Addresses 0).Address}},{{.Kind}}.p.example.org:fd00::1"
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"pairs replace the node name", Config{FQDNTargetTemplate: pairs}, []string{
			"n1.example.com.p.example.org A 203.0.113.1 res=node/n1.example.com",
			"node.p.example.org AAAA fd00::1 res=node/n1.example.com",
		}},
		{"pairs combined", Config{FQDNTargetTemplate: "{{.Name}}.p.example.org:192.0.2.1", CombineFQDNAndAnnotation: true}, []string{
			nodeName, "n1.example.com.p.example.org A 192.0.2.1 res=node/n1.example.com",
		}},
		{"pairs then --fqdn-template (not run: the pairs made records)", Config{FQDNTargetTemplate: "{{.Name}}.p.example.org:192.0.2.1", FQDNTemplate: "{{.Name}}.f.example.org"}, []string{
			"n1.example.com.p.example.org A 192.0.2.1 res=node/n1.example.com",
		}},
		{"--target-template alone", Config{TargetTemplate: "192.0.2.9"}, []string{nodeName}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var problems problemList
			expectEndpoints(t, compiledFor(t, tc.cfg).nodeEndpoints(node, &problems), tc.want...)
			if len(problems.items) > 0 {
				t.Errorf("problems: %+v", problems.items)
			}
		})
	}

	pod := func(name string, ann map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Annotations: ann},
			Status: corev1.PodStatus{PodIP: "10.1.0.1", PodIPs: []corev1.PodIP{{IP: "10.1.0.1"}}}}
	}
	annotated := pod("annotated", map[string]string{ga + "internal-hostname": "annotated.example.com"})
	plain := pod("plain", nil)
	for _, tc := range []struct {
		cfg  Config
		want []string
	}{
		{Config{FQDNTargetTemplate: "{{.Name}}.{{.Kind}}.p.example.com:{{.Status.PodIP}}"}, []string{
			"annotated.example.com A 10.1.0.1 res=pod/default/annotated",
			"plain.pod.p.example.com A 10.1.0.1 res=pod/default/plain",
		}},
		{Config{FQDNTargetTemplate: "{{.Name}}.p.example.com:{{.Status.PodIP}}", CombineFQDNAndAnnotation: true}, []string{
			"annotated.example.com A 10.1.0.1 res=pod/default/annotated",
			"annotated.p.example.com A 10.1.0.1 res=pod/default/annotated",
			"plain.p.example.com A 10.1.0.1 res=pod/default/plain",
		}},
	} {
		c := compiledFor(t, tc.cfg)
		var problems problemList
		var got []*endpoint.Endpoint
		for _, p := range []*corev1.Pod{annotated, plain} {
			got = append(got, c.podEndpoints(p, nil, &problems)...)
		}
		expectEndpoints(t, got, tc.want...)
	}
}

// TestIsIPv6CountsMappedAddresses: external-dns (v0.21 and v0.23) classifies an IPv4-mapped IPv6
// address as IPv6 (an AAAA target); zonekeeper's isIPv6 used to say false for it.
func TestIsIPv6CountsMappedAddresses(t *testing.T) {
	r := run(t, Config{FQDNTargetTemplate: `{{if isIPv6 "::ffff:192.0.2.1"}}mapped.example.com:10.0.0.1{{end}},` +
		`{{if not (isIPv4 "::ffff:192.0.2.1")}}not4.example.com:10.0.0.2{{end}}`}, templateService("svc", nil))
	expectEndpoints(t, r.Endpoints, "mapped.example.com A 10.0.0.1 res=service/default/svc", "not4.example.com A 10.0.0.2 res=service/default/svc")
}
