package source

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestServiceEndpoints(t *testing.T) {
	host := map[string]string{alpha + "hostname": "web.example.com"}
	res := "res=service/default/web"
	nodes := []runtime.Object{
		node("n1", false, ext("203.0.113.1"), internal("10.1.0.1")),
		node("n2", false, ext("203.0.113.2"), internal("10.1.0.2")),
		node("n3", true, ext("203.0.113.3"), internal("10.1.0.3")),
	}
	internalOnly := []runtime.Object{node("n1", false, internal("10.1.0.1")), node("n2", false, internal("fd00::2"))}
	nodePort := func(ann map[string]string, policy corev1.ServiceExternalTrafficPolicy) *corev1.Service {
		return &corev1.Service{ObjectMeta: om("web", ann), Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeNodePort, ClusterIP: "10.0.0.10", ExternalTrafficPolicy: policy,
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP}},
		}}
	}
	headless := func(ann map[string]string, publishNotReady bool) *corev1.Service {
		return &corev1.Service{ObjectMeta: om("web", ann), Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: corev1.ClusterIPNone, PublishNotReadyAddresses: publishNotReady,
			Selector: map[string]string{"app": "web"},
		}}
	}
	app := map[string]string{"app": "web"}
	headlessPods := []runtime.Object{
		pod("web-0", "n1", "web-0", true, app),
		pod("web-1", "n2", "", false, app),
		endpointSlice("web-abc", "web", sliceEndpoint("web-0", "10.2.0.1", true), sliceEndpoint("web-1", "10.2.0.2", false)),
	}
	with := func(ann map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range ann {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	srv := "_web._tcp.web.example.com SRV 0 50 30080 web.example.com. " + res

	cases := []struct {
		name string
		cfg  Config
		objs []runtime.Object
		want []string
	}{
		{"load balancer ip", DefaultConfig(), []runtime.Object{lbService("web", host, corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.example.com A 203.0.113.10 " + res}},
		{"load balancer hostname becomes CNAME", DefaultConfig(), []runtime.Object{lbService("web", host, corev1.LoadBalancerIngress{Hostname: "LB.elb.amazonaws.com."})},
			[]string{"web.example.com CNAME lb.elb.amazonaws.com " + res}},
		{"load balancer ip and hostname and ipv6", DefaultConfig(), []runtime.Object{lbService("web", host,
			corev1.LoadBalancerIngress{IP: "203.0.113.10", Hostname: "lb.example.net"}, corev1.LoadBalancerIngress{IP: "2001:db8::1"})},
			[]string{"web.example.com A 203.0.113.10 " + res, "web.example.com AAAA 2001:db8::1 " + res, "web.example.com CNAME lb.example.net " + res}},
		{"load balancer externalIPs win over status", DefaultConfig(), []runtime.Object{func() runtime.Object {
			s := lbService("web", host, corev1.LoadBalancerIngress{IP: "203.0.113.10"})
			s.Spec.ExternalIPs = []string{"198.51.100.7"}
			return s
		}()}, []string{"web.example.com A 198.51.100.7 " + res}},
		{"load balancer without status publishes nothing", DefaultConfig(), []runtime.Object{lbService("web", host)}, nil},
		{"internal-hostname on a load balancer uses the ClusterIP", DefaultConfig(), []runtime.Object{lbService("web",
			with(host, alpha+"internal-hostname", "web.internal.example.com"), corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.example.com A 203.0.113.10 " + res, "web.internal.example.com A 10.0.0.10 " + res}},
		{"target annotation overrides", DefaultConfig(), []runtime.Object{lbService("web",
			with(host, alpha+"target", "198.51.100.1, edge.example.net."), corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.example.com A 198.51.100.1 " + res, "web.example.com CNAME edge.example.net " + res}},
		{"ttl, set identifier and provider-specific", DefaultConfig(), []runtime.Object{lbService("web",
			with(host, alpha+"ttl", "10m", alpha+"set-identifier", "eu", alpha+"aws-weight", "10", alpha+"alias", "true"),
			corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.example.com A 203.0.113.10 ttl=600 set=eu ps=alias=true;aws/weight=10 " + res}},
		{"clusterIP without publish-internal", DefaultConfig(), []runtime.Object{&corev1.Service{ObjectMeta: om("web", host),
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.10"}}}, nil},
		{"clusterIP with publish-internal", Config{PublishInternalServices: true}, []runtime.Object{&corev1.Service{ObjectMeta: om("web", host),
			Spec: corev1.ServiceSpec{ClusterIP: "10.0.0.10"}}}, []string{"web.example.com A 10.0.0.10 " + res}},
		{"clusterIP with internal-hostname", DefaultConfig(), []runtime.Object{&corev1.Service{ObjectMeta: om("web", map[string]string{ga + "internal-hostname": "web.svc.example.com"}),
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.10"}}}, []string{"web.svc.example.com A 10.0.0.10 " + res}},
		{"externalName", DefaultConfig(), []runtime.Object{&corev1.Service{ObjectMeta: om("web", host),
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "backend.example.org"}}},
			[]string{"web.example.com CNAME backend.example.org " + res}},
		{"nodePort uses external IPs, skips unschedulable", DefaultConfig(), append([]runtime.Object{nodePort(host, "")}, nodes...),
			[]string{"web.example.com A 203.0.113.1,203.0.113.2 " + res, srv}},
		{"nodePort includes unschedulable when not excluded", Config{}, append([]runtime.Object{nodePort(host, "")}, nodes...),
			[]string{"web.example.com A 203.0.113.1,203.0.113.2,203.0.113.3 " + res, srv}},
		{"nodePort access private", DefaultConfig(), append([]runtime.Object{nodePort(with(host, alpha+"access", "private"), "")}, nodes...),
			[]string{"web.example.com A 10.1.0.1,10.1.0.2 " + res, srv}},
		{"nodePort falls back to internal IPs", DefaultConfig(), append([]runtime.Object{nodePort(host, "")}, internalOnly...),
			[]string{"web.example.com A 10.1.0.1 " + res, "web.example.com AAAA fd00::2 " + res, srv}},
		{"nodePort access public without external IPs", DefaultConfig(), append([]runtime.Object{nodePort(with(host, ga+"access", "public"), "")}, internalOnly...),
			[]string{srv}},
		{"nodePort Local: only nodes with a ready pod", DefaultConfig(), append([]runtime.Object{nodePort(host, corev1.ServiceExternalTrafficPolicyLocal),
			pod("a", "n2", "", true, app), pod("b", "n1", "", false, app), pod("c", "n1", "", true, map[string]string{"app": "other"})}, nodes...),
			[]string{"web.example.com A 203.0.113.2 " + res, srv}},
		{"headless: ready addresses and pod hostnames", DefaultConfig(), append([]runtime.Object{headless(host, false)}, headlessPods...),
			[]string{"web.example.com A 10.2.0.1 " + res, "web-0.web.example.com A 10.2.0.1 " + res}},
		{"headless: publishNotReadyAddresses", DefaultConfig(), append([]runtime.Object{headless(host, true)}, headlessPods...),
			[]string{"web.example.com A 10.2.0.1,10.2.0.2 " + res, "web-0.web.example.com A 10.2.0.1 " + res}},
		{"headless: always-publish-not-ready", Config{AlwaysPublishNotReadyAddresses: true}, append([]runtime.Object{headless(host, false)}, headlessPods...),
			[]string{"web.example.com A 10.2.0.1,10.2.0.2 " + res, "web-0.web.example.com A 10.2.0.1 " + res}},
		{"headless: publish-host-ip", Config{PublishHostIP: true}, append([]runtime.Object{headless(host, false)}, headlessPods...),
			[]string{"web.example.com A 192.168.0.1 " + res, "web-0.web.example.com A 192.168.0.1 " + res}},
		{"headless: endpoints-type NodeExternalIP", DefaultConfig(), append(append([]runtime.Object{headless(with(host, alpha+"endpoints-type", "NodeExternalIP"), true)}, headlessPods...), nodes...),
			[]string{"web.example.com A 203.0.113.1,203.0.113.2 " + res, "web-0.web.example.com A 203.0.113.1 " + res}},
		{"headless: pod target annotation", DefaultConfig(), []runtime.Object{headless(host, false),
			func() runtime.Object {
				p := pod("web-0", "n1", "web-0", true, app)
				p.Annotations = map[string]string{ga + "target": "198.51.100.9"}
				return p
			}(),
			endpointSlice("web-abc", "web", sliceEndpoint("web-0", "10.2.0.1", true))},
			[]string{"web.example.com A 198.51.100.9 " + res, "web-0.web.example.com A 198.51.100.9 " + res}},
		{"services sharing a name are merged", DefaultConfig(), []runtime.Object{
			lbService("a", host, corev1.LoadBalancerIngress{IP: "203.0.113.1"}),
			lbService("b", host, corev1.LoadBalancerIngress{IP: "203.0.113.2"})},
			[]string{"web.example.com A 203.0.113.1,203.0.113.2 res=service/default/a"}},
		{"service type filter", Config{ServiceTypeFilter: []string{"NodePort"}}, []runtime.Object{lbService("web", host, corev1.LoadBalancerIngress{IP: "203.0.113.10"})}, nil},
		{"fqdn template when no hostname", Config{FQDNTemplate: "{{.Name}}.{{.Namespace}}.example.com"},
			[]runtime.Object{lbService("web", nil, corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.default.example.com A 203.0.113.10 " + res}},
		{"fqdn template not used when annotated", Config{FQDNTemplate: "{{.Name}}.{{.Namespace}}.example.com"},
			[]runtime.Object{lbService("web", host, corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.example.com A 203.0.113.10 " + res}},
		{"combine fqdn template and annotation", Config{FQDNTemplate: "{{.Name}}.tpl.example.com, x.example.com", CombineFQDNAndAnnotation: true},
			[]runtime.Object{lbService("web", host, corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.example.com A 203.0.113.10 " + res, "web.tpl.example.com A 203.0.113.10 " + res, "x.example.com A 203.0.113.10 " + res}},
		{"ignore hostname annotation", Config{FQDNTemplate: "{{.Name}}.tpl.example.com", IgnoreHostnameAnnotation: true},
			[]runtime.Object{lbService("web", host, corev1.LoadBalancerIngress{IP: "203.0.113.10"})},
			[]string{"web.tpl.example.com A 203.0.113.10 " + res}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.cfg, tc.objs...)
			expectEndpoints(t, r.Endpoints, tc.want...)
			expectNoProblems(t, r)
		})
	}
}

func TestServiceInformersNeeded(t *testing.T) {
	cases := []struct {
		types               []string
		nodes, pods, slices bool
	}{
		{nil, true, true, true},
		{[]string{"LoadBalancer"}, false, false, false},
		{[]string{"LoadBalancer", "ExternalName"}, false, false, false},
		{[]string{"NodePort"}, true, true, false},
		{[]string{"ClusterIP"}, true, true, true},
	}
	for _, tc := range cases {
		c, err := compile(Config{ServiceTypeFilter: tc.types})
		if err != nil {
			t.Fatal(err)
		}
		n, p, s := c.serviceInformersNeeded()
		if n != tc.nodes || p != tc.pods || s != tc.slices {
			t.Errorf("%v: nodes=%v pods=%v slices=%v, want %v %v %v", tc.types, n, p, s, tc.nodes, tc.pods, tc.slices)
		}
	}
}

// A service whose selector matches pods in another namespace must not see them.
func TestServiceNodePortLocalIgnoresOtherNamespaces(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: om("web", map[string]string{alpha + "hostname": "web.example.com"}), Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeNodePort, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal, Selector: map[string]string{"app": "web"},
	}}
	p := pod("a", "n1", "", true, map[string]string{"app": "web"})
	p.ObjectMeta = metav1.ObjectMeta{Namespace: "other", Name: "a", Labels: p.Labels}
	r := run(t, DefaultConfig(), svc, p, node("n1", false, ext("203.0.113.1")))
	expectEndpoints(t, r.Endpoints)
}
