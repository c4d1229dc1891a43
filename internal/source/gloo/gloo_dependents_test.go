package gloo

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The event of a VirtualService, a Gateway, an Ingress or a Service names exactly the Proxies in a
// --gloo-namespace namespace that read it — never everything, never a Proxy elsewhere — and the named
// Proxies' ObjectEndpoints give what Endpoints publishes there. Each dependents function is asked
// about every such object of the fixture, then real events are watched for four of them.
func TestGlooEventsNameTheProxiesThatReadThem(t *testing.T) {
	aggregate := map[string]any{
		"aggregateListener": map[string]any{
			"httpFilterChains": []any{map[string]any{"virtualHostRefs": []any{"shared"}}},
			"httpResources":    map[string]any{"virtualHosts": map[string]any{"shared": vhost([]string{"agg.example.com"}, true, "team-a/agg")}},
		},
		"metadataStatic": listener(nil, "gloo-system/plain")["metadataStatic"],
	}
	api, kube, dyn := sourcetest.StartClusterServer(t, testbed.InstallGloo,
		lbService("gloo-system", "gateway-proxy", "LoadBalancer", "ip=192.0.2.1"),
		lbService("gloo-system", "unrelated", "LoadBalancer", "ip=192.0.2.2"),
		lbService("elsewhere", "gateway-proxy", "LoadBalancer", "ip=192.0.2.3"),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "web", sourcetest.Annotations("ttl", "60"), map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "api", nil, map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "agg", nil, map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "unused", nil, map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "plain", nil, map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "via-ingress", sourcetest.Annotations("ingress", "team-a/web"), map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "by-name", sourcetest.Annotations("ingress", "web2"), map[string]any{}, nil),
		proxy("gloo-system", "gateway-proxy", []any{listener([]any{
			vhost([]string{"web.example.com"}, false, "team-a/web"),
			vhost([]string{"api.example.com"}, true, "team-a/api"),
		}, "gloo-system/plain")}),
		proxy("gloo-system", "ingressed", []any{listener([]any{vhost([]string{"ing.example.com"}, false, "team-a/web")}, "gloo-system/via-ingress")}),
		proxy("gloo-system", "named-ingress", []any{listener([]any{vhost([]string{"named.example.com"}, false)}, "gloo-system/by-name")}),
		proxy("gloo-system", "agg", []any{aggregate}, "target", "203.0.113.9"),
		proxy("elsewhere", "gateway-proxy", []any{listener([]any{vhost([]string{"elsewhere.example.com"}, false, "team-a/web")}, "gloo-system/via-ingress")}),
	)
	createIngress(t, kube, "team-a", "web", "lb.example.net")
	createIngress(t, kube, "gloo-system", "web2", "lb2.example.net")
	createIngress(t, kube, "team-a", "unused", "lb3.example.net")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	built, err := Kind().New(ctx, source.Env{Kube: api.Kube(t), Dynamic: dyn})
	if err != nil {
		t.Fatal(err)
	}
	s := built.(*Source)
	custom := func(gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
		t.Helper()
		u, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	service := func(ns, name string) *corev1.Service {
		t.Helper()
		svc, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	ingress := func(ns, name string) *networkingv1.Ingress {
		t.Helper()
		ing, err := kube.NetworkingV1().Ingresses(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ing
	}
	const gp, ingressed, named, agg = "proxy/gloo-system/gateway-proxy", "proxy/gloo-system/ingressed", "proxy/gloo-system/named-ingress", "proxy/gloo-system/agg"
	for _, tc := range []struct {
		what      string
		got, want []string
	}{
		{"VirtualService team-a/web", s.virtualServiceDependents(custom(VirtualServiceResource, "team-a", "web")), []string{gp, ingressed}},
		{"VirtualService team-a/api (metadataStatic)", s.virtualServiceDependents(custom(VirtualServiceResource, "team-a", "api")), []string{gp}},
		{"VirtualService team-a/agg (aggregate listener)", s.virtualServiceDependents(custom(VirtualServiceResource, "team-a", "agg")), []string{agg}},
		{"VirtualService team-a/unused", s.virtualServiceDependents(custom(VirtualServiceResource, "team-a", "unused")), nil},
		{"Gateway plain", s.gatewayDependents(custom(GatewayResource, "gloo-system", "plain")), []string{agg, gp}},
		{"Gateway via-ingress", s.gatewayDependents(custom(GatewayResource, "gloo-system", "via-ingress")), []string{ingressed}},
		{"Ingress team-a/web", s.ingressDependents(ingress("team-a", "web")), []string{ingressed}},
		{"Ingress gloo-system/web2 (a name in the Gateway's namespace)", s.ingressDependents(ingress("gloo-system", "web2")), []string{named}},
		{"Ingress team-a/unused", s.ingressDependents(ingress("team-a", "unused")), nil},
		{"Service gloo-system/gateway-proxy", s.serviceDependents(service("gloo-system", "gateway-proxy")), []string{gp}},
		{"Service gloo-system/unrelated", s.serviceDependents(service("gloo-system", "unrelated")), nil},
		{"Service elsewhere/gateway-proxy (outside --gloo-namespace)", s.serviceDependents(service("elsewhere", "gateway-proxy")), nil},
	} {
		got := slices.Sorted(slices.Values(tc.got))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s names %q, want %q", tc.what, got, tc.want)
		}
		sourcetest.ObjectEndpointsMatch(t, s, tc.want)
	}

	namedCh := make(chan string, 100)
	s.AddObjectHandler(func(r string) { namedCh <- r })
	web := custom(VirtualServiceResource, "team-a", "web")
	web.SetAnnotations(sourcetest.Annotations("ttl", "90"))
	if _, err := dyn.Resource(VirtualServiceResource).Namespace("team-a").Update(ctx, web, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sourcetest.ExpectNamed(t, namedCh, "VirtualService team-a/web's ttl", gp, ingressed)
	ing := ingress("team-a", "web")
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb-new.example.net"}}
	if _, err := kube.NetworkingV1().Ingresses("team-a").UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sourcetest.ExpectNamed(t, namedCh, "Ingress team-a/web's new address", ingressed)
	svc := service("gloo-system", "gateway-proxy")
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.99"}}
	if _, err := kube.CoreV1().Services("gloo-system").UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sourcetest.ExpectNamed(t, namedCh, "Service gloo-system/gateway-proxy's new address", gp)
	gw := custom(GatewayResource, "gloo-system", "by-name")
	gw.SetAnnotations(sourcetest.Annotations("ingress", "team-a/web"))
	if _, err := dyn.Resource(GatewayResource).Namespace("gloo-system").Update(ctx, gw, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	sourcetest.ExpectNamed(t, namedCh, "Gateway by-name's ingress annotation", named)
	// The Gateway now names team-a/web: that Ingress's event names both Proxies behind it.
	if got := slices.Sorted(slices.Values(s.ingressDependents(ingress("team-a", "web")))); !slices.Equal(got, []string{ingressed, named}) {
		t.Errorf("after the Gateway's change, Ingress team-a/web names %q", got)
	}
	sourcetest.ObjectEndpointsMatch(t, s, []string{gp, ingressed, named})
}
