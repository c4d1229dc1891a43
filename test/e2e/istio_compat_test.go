package e2e

import (
	"context"
	"regexp"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/source/istio/istiotest"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// istioFixture is the differential test's cluster: 7 LoadBalancer Services (IPv4, IPv6, hostname,
// external IPs, no status, in istio-system and team-b), 28 Gateways and 27 VirtualServices covering
// server hosts (plain, namespace/host, ./host, */host, "*", wildcard, bad), selectors matching one,
// several, no Service or no selector at all, the target, hostname, ttl, controller, ingress and
// provider annotations, a label; VirtualServices bound to Gateways by exact, wildcard and "*" hosts,
// by name and namespace/name, with "mesh", a missing Gateway, exportTo and namespace-restricted
// server hosts.
func istioFixture() []*unstructured.Unstructured {
	l := func(s ...string) []string { return s }
	sel := func(v string) map[string]string { return map[string]string{"istio": v} }
	ig := sel("ingressgateway")
	out := []*unstructured.Unstructured{
		istiotest.Service("istio-system", "ingress", ig, nil, l("192.0.2.1")),
		istiotest.Service("istio-system", "ingress-canary", map[string]string{"istio": "ingressgateway", "rev": "canary"}, nil, l("192.0.2.2")),
		istiotest.Service("istio-system", "internal", sel("internal"), l("10.0.0.3"), l("192.0.2.3")),
		istiotest.Service("istio-system", "v6", sel("v6"), nil, l("2001:db8::4")),
		istiotest.Service("istio-system", "hostlb", sel("hostlb"), nil, l("lb-host.example.net")),
		istiotest.Service("istio-system", "pending", sel("pending"), nil, nil),
		istiotest.Service("team-b", "local", sel("local"), nil, l("192.0.2.7")),
	}
	gw := func(ns, name string, selector map[string]string, hosts []string, kv ...string) {
		out = append(out, istiotest.Gateway(ns, name, selector, [][]string{hosts}, kv...))
	}
	gw("istio-system", "g01", ig, l("g01.example.com"))
	gw("istio-system", "g02", sel("internal"), l("g02.example.com"))
	gw("istio-system", "g03", sel("v6"), l("g03.example.com"))
	gw("istio-system", "g04", sel("hostlb"), l("g04.example.com"))
	gw("istio-system", "g05", sel("pending"), l("g05.example.com"))
	gw("istio-system", "g06", sel("nothing"), l("g06.example.com"))
	gw("istio-system", "g07", ig, l("team-a/g07.example.com", "./g07b.example.com", "*/g07c.example.com"))
	gw("istio-system", "g08", ig, l("*"), "hostname", "g08.example.com")
	gw("istio-system", "g09", ig, l("*.g09.example.com"))
	gw("istio-system", "g10", ig, l("g10.example.com"), "target", "203.0.113.10")
	gw("istio-system", "g11", sel("pending"), l("g11.example.com"), "target", "lb-g11.example.net.")
	gw("istio-system", "g12", ig, l("g12.example.com"), "ttl", "120")
	gw("istio-system", "g13", ig, l("g13.example.com"), "ttl", "5m")
	gw("istio-system", "g14", ig, l("g14.example.com"), "ttl", "abc")
	gw("istio-system", "g15", ig, l("g15.example.com"), "hostname", "bad_name!.example.com,g15-ann.example.com")
	gw("istio-system", "g16", ig, l("bad_host!.example.com", "g16.example.com"))
	gw("istio-system", "g17", ig, l("g17.example.com"), "controller", "someone-else")
	gw("istio-system", "g18", ig, l("g18.example.com"), "external-dns.kubernetes.io/hostname", "g18-ga.example.com")
	gw("istio-system", "g20", ig, l("g20.example.com"), "ttl", "60", "aws-weight", "10")
	gw("team-b", "g21", sel("local"), l("g21.example.com", "team-a/g21a.example.com"))
	gw("team-b", "g22", nil, l("g22.example.com"))
	gw("team-a", "g23", ig, l("team-a/g23.example.com"), "hostname", "G23-Mixed.Example.com.")
	gw("istio-system", "g24", ig, l("g24.example.com"), "ingress", "default/web-ing")
	// Gateways the VirtualServices bind to.
	gw("istio-system", "vgw-public", ig, l("*/*.apps.example.com", "*/exact.example.com"))
	gw("istio-system", "vgw-ns", sel("internal"), l("team-a/*.a.example.com", "./*.sys.example.com"))
	gw("team-b", "vgw-all", sel("local"), l("*"))
	gw("istio-system", "vgw-target", sel("pending"), l("*.t.example.com"), "target", "203.0.113.50")
	labelled := istiotest.Gateway("istio-system", "g19", ig, [][]string{{"g19.example.com"}})
	labelled.SetLabels(map[string]string{"app": "none"})
	out = append(out, labelled)

	pub, ns := l("istio-system/vgw-public"), l("istio-system/vgw-ns")
	vs := func(ns, name string, hosts, gateways, exportTo []string, kv ...string) *unstructured.Unstructured {
		u := istiotest.VirtualService(ns, name, hosts, gateways, exportTo, kv...)
		out = append(out, u)
		return u
	}
	vs("team-a", "v01", l("v01.apps.example.com"), pub, nil)
	vs("team-a", "v02", l("exact.example.com"), pub, nil)
	vs("team-a", "v03", l("v03.other.example.com"), pub, nil)
	vs("team-a", "v04", l("v04.a.example.com"), ns, nil)
	vs("team-b", "v05", l("v05.a.example.com"), ns, nil)
	vs("istio-system", "v06", l("v06.sys.example.com"), l("vgw-ns"), nil)
	vs("team-a", "v07", l("v07.sys.example.com"), ns, nil)
	vs("team-b", "v08", l("v08.example.com"), l("vgw-all"), nil)
	vs("team-a", "v09", l("v09.example.com"), l("mesh"), nil)
	vs("team-a", "v10", l("v10.apps.example.com"), l("mesh", "istio-system/vgw-public"), nil)
	vs("team-a", "v11", l("v11.apps.example.com"), pub, l("."))
	vs("team-a", "v12", l("v12.apps.example.com"), pub, l("istio-system"))
	vs("team-a", "v13", l("v13.example.com"), l("mesh"), nil, "target", "203.0.113.13")
	vs("team-a", "v14", l("v14.t.example.com"), l("istio-system/vgw-target"), nil)
	vs("team-a", "v15", l("*"), pub, nil, "hostname", "v15.apps.example.com")
	vs("team-a", "v16", l("v16.apps.example.com"), pub, nil, "ttl", "90")
	vs("team-a", "v17", l("v17.apps.example.com"), pub, nil, "ttl", "bad")
	vs("team-a", "v18", l("team-a/v18.apps.example.com"), pub, nil)
	vs("team-a", "v19", l("v19.apps.example.com"), l("istio-system/missing", "istio-system/vgw-public"), nil)
	vs("team-a", "v20", l("v20.apps.example.com", "v20b.apps.example.com"), pub, nil, "hostname", "bad_name!.apps.example.com")
	vs("team-a", "v21", l("v21.apps.example.com"), pub, nil, "controller", "someone-else")
	vs("team-a", "v22", l("v22.apps.example.com"), pub, nil).SetLabels(map[string]string{"app": "none"})
	vs("team-a", "v23", l("v23.apps.example.com"), l("istio-system/vgw-public", "istio-system/vgw-ns"), nil)
	vs("team-a", "v24", l("*.wild.apps.example.com"), pub, nil)
	vs("team-a", "v25", nil, pub, nil)
	vs("team-a", "v26", l("v26.apps.example.com"), l("vgw-public"), nil)
	vs("team-a", "v27", l("v27.apps.example.com"), pub, nil, "external-dns.kubernetes.io/hostname", "v27-ga.apps.example.com")
	vs("team-b", "v28", l("v28.example.com"), l("vgw-all"), nil, "target", "lb-v28.example.net", "set-identifier", "")
	return out
}

// TestIstioSourcesMatchExternalDNS compares the istio-gateway and istio-virtualservice sources with
// external-dns's, each source in its own runs so that their names cannot collide.
func TestIstioSourcesMatchExternalDNS(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	testbed.InstallIstio(t, kube)
	dyn, err := dynamic.NewForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Create(t, kube.Client(t), dyn, istioFixture()...)
	// The Ingress external-dns's ingress annotation on Gateway g24 names.
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-ing"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "web-ing.example.org"}}}}
	ingresses := kube.Client(t).NetworkingV1().Ingresses("default")
	created, err := ingresses.Create(context.Background(), ing, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.24"}}
	if _, err := ingresses.UpdateStatus(context.Background(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	wildcard := diffPin{onlyED: true, refused: true, re: regexp.MustCompile(`\*`),
		why: "a wildcard name on CoreDNS: external-dns writes a literal \"*\" label, zonekeeper's coredns provider refuses it"}
	badName := diffPin{onlyED: true, re: regexp.MustCompile(`bad_(name|host)!\.`),
		why: "a name that is not a DNS name: external-dns publishes it, zonekeeper reports it"}
	ga := func(name string) diffPin {
		return diffPin{v021: true, re: regexp.MustCompile(`^(a-)?` + name + `-ga\.`),
			why: "external-dns.kubernetes.io/ annotations: v0.21 reads only the alpha prefix, v0.23 and zonekeeper both"}
	}
	ingress := diffPin{onlyED: true, re: regexp.MustCompile(`^(a-)?g24\.`),
		why: "the ingress annotation on an Istio Gateway: external-dns takes the Ingress's status, zonekeeper reports it and does not read Ingresses"}
	t.Run("istio-gateway", func(t *testing.T) {
		pins := []diffPin{wildcard, badName, ga("g18"), ingress}
		compareWithExternalDNS(t, []string{"--kubeconfig=" + kube.Kubeconfig, "--source=istio-gateway"}, []diffSet{
			{nil, pins, 40},
			{[]string{"--fqdn-template={{.Name}}.{{.Namespace}}.tmpl.example.com"}, pins, 40},
			{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"},
				[]diffPin{wildcard, badName, ingress}, 40},
			// Not istio-system: external-dns fails its whole run when the Ingress g24 names is outside
			// --namespace.
			{[]string{"--namespace=team-b"}, nil, 4},
			{[]string{"--label-filter=app!=none"}, pins, 40},
			{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 8},
		})
	})
	t.Run("istio-virtualservice", func(t *testing.T) {
		pins := []diffPin{wildcard, badName, ga("v27")}
		compareWithExternalDNS(t, []string{"--kubeconfig=" + kube.Kubeconfig, "--source=istio-virtualservice"}, []diffSet{
			{nil, pins, 30},
			{[]string{"--fqdn-template={{.Name}}.{{.Namespace}}.tmpl.example.com"}, pins, 30},
			{[]string{"--fqdn-template={{.Name}}.tmpl.example.com", "--combine-fqdn-annotation", "--ignore-hostname-annotation"},
				[]diffPin{wildcard}, 30},
			{[]string{"--namespace=team-a", "--label-filter=app!=none"}, nil, 2},
			{[]string{"--annotation-filter=external-dns.alpha.kubernetes.io/ttl"}, nil, 4},
		})
	})
}
