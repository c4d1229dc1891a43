package gloo

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// vhost is a virtual host with domains from VirtualServices named "ns/name" (through metadata, or
// metadataStatic when static).
func vhost(domains []string, static bool, vss ...string) map[string]any {
	var ds []any
	for _, d := range domains {
		ds = append(ds, d)
	}
	var srcs []any
	for _, vs := range vss {
		ns, name, _ := strings.Cut(vs, "/")
		if static {
			srcs = append(srcs, map[string]any{"resourceKind": "*v1.VirtualService", "resourceRef": map[string]any{"name": name, "namespace": ns}})
		} else {
			srcs = append(srcs, map[string]any{"kind": "*v1.VirtualService", "name": name, "namespace": ns})
		}
	}
	vh := map[string]any{"domains": ds}
	if static {
		vh["metadataStatic"] = map[string]any{"sources": srcs}
	} else {
		vh["metadata"] = map[string]any{"sources": srcs}
	}
	return vh
}

// listener is an HTTP listener with virtual hosts, made by the Gateways named "ns/name".
func listener(vhosts []any, gateways ...string) map[string]any {
	var srcs []any
	for _, g := range gateways {
		ns, name, _ := strings.Cut(g, "/")
		srcs = append(srcs, map[string]any{"resourceKind": "*v1.Gateway", "resourceRef": map[string]any{"name": name, "namespace": ns}})
	}
	return map[string]any{"httpListener": map[string]any{"virtualHosts": vhosts}, "metadataStatic": map[string]any{"sources": srcs}}
}

func proxy(ns, name string, listeners []any, kv ...string) *unstructured.Unstructured {
	return sourcetest.Object("gloo.solo.io/v1", "Proxy", ns, name, sourcetest.Annotations(kv...), map[string]any{"listeners": listeners}, nil)
}

func lbService(ns, name, typ string, lb ...string) *unstructured.Unstructured {
	var ingress []any
	for _, a := range lb {
		k, v, _ := strings.Cut(a, "=")
		ingress = append(ingress, map[string]any{k: v})
	}
	var status map[string]any
	if len(ingress) > 0 {
		status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
	}
	return sourcetest.Object("v1", "Service", ns, name, nil,
		map[string]any{"type": typ, "ports": []any{map[string]any{"port": int64(80)}}}, status)
}

// Proxies on a real API server with the CRDs of Gloo's own module: domains of HTTP and aggregate
// listeners, metadata from VirtualServices (both reference styles), targets from the target
// annotation, a Gateway's Ingress or the Proxy's Service, --gloo-namespace, and broken references.
func TestProxies(t *testing.T) {
	aggregate := map[string]any{
		"aggregateListener": map[string]any{
			"httpFilterChains": []any{map[string]any{"virtualHostRefs": []any{"shared", "missing-ref"}}},
			"httpResources":    map[string]any{"virtualHosts": map[string]any{"shared": vhost([]string{"agg.example.com"}, true, "team-a/agg")}},
		},
	}
	api, kube, dyn := sourcetest.StartClusterServer(t, testbed.InstallGloo,
		lbService("gloo-system", "gateway-proxy", "LoadBalancer", "ip=192.0.2.1", "ip=2001:db8::1"),
		lbService("gloo-system", "internal-proxy", "ClusterIP"),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "web", sourcetest.Annotations("ttl", "60"), map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "api", sourcetest.Annotations("set-identifier", "blue", "aws-weight", "10"), map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "VirtualService", "team-a", "agg", sourcetest.Annotations("ttl", "soon"), map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "plain", nil, map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "via-ingress", sourcetest.Annotations("ingress", "team-a/web"), map[string]any{}, nil),
		sourcetest.Object("gateway.solo.io/v1", "Gateway", "gloo-system", "bad-ingress", sourcetest.Annotations("ingress", "team-a/nope"), map[string]any{}, nil),
		proxy("gloo-system", "gateway-proxy", []any{listener([]any{
			vhost([]string{"web.example.com", "*", "www.example.com."}, false, "team-a/web"),
			vhost([]string{"api.example.com"}, true, "team-a/api"),
			vhost([]string{"bad_name!.example.com"}, false),
		}, "gloo-system/plain")}),
		proxy("gloo-system", "targeted", []any{aggregate}, "target", "203.0.113.9"),
		proxy("gloo-system", "ingressed", []any{listener([]any{vhost([]string{"ing.example.com"}, false)}, "gloo-system/via-ingress")}),
		proxy("gloo-system", "internal-proxy", []any{listener([]any{vhost([]string{"internal.example.com"}, false)})}),
		proxy("gloo-system", "orphan", []any{listener([]any{vhost([]string{"orphan.example.com"}, false)})}),
		proxy("gloo-system", "dangling", []any{listener([]any{vhost([]string{"dangling.example.com"}, false, "team-a/gone")})}, "target", "203.0.113.10"),
		proxy("gloo-system", "badgw", []any{listener([]any{vhost([]string{"badgw.example.com"}, false)}, "gloo-system/bad-ingress")}),
		proxy("elsewhere", "gateway-proxy", []any{listener([]any{vhost([]string{"elsewhere.example.com"}, false)})}, "target", "203.0.113.11"),
	)
	createIngress(t, kube, "team-a", "web", "lb.example.net")
	env := source.Env{Kube: api.Kube(t), Dynamic: dyn}
	all := []string{
		"agg.example.com A 203.0.113.9 proxy/gloo-system/targeted",
		"api.example.com A 192.0.2.1 proxy/gloo-system/gateway-proxy set=blue aws/weight=10",
		"api.example.com AAAA 2001:db8::1 proxy/gloo-system/gateway-proxy set=blue aws/weight=10",
		"ing.example.com CNAME lb.example.net proxy/gloo-system/ingressed",
		"web.example.com A 192.0.2.1 proxy/gloo-system/gateway-proxy ttl=60",
		"web.example.com AAAA 2001:db8::1 proxy/gloo-system/gateway-proxy ttl=60",
		"www.example.com A 192.0.2.1 proxy/gloo-system/gateway-proxy ttl=60",
		"www.example.com AAAA 2001:db8::1 proxy/gloo-system/gateway-proxy ttl=60",
	}
	src, got, problems := sourcetest.Endpoints(t, Kind(), env, source.Config{})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("Proxies:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(all, "\n"))
	}
	ps := sourcetest.Problems(problems)
	for _, want := range []string{"bad_name!.example.com", "VirtualService team-a/agg", "soon", "Proxy gloo-system/orphan",
		"team-a/gone", "VirtualService not found", "Ingress team-a/nope not found"} {
		if !strings.Contains(ps, want) {
			t.Errorf("no problem names %q:\n%s", want, ps)
		}
	}
	if strings.Contains(ps, `"*"`) || strings.Contains(ps, "internal-proxy") {
		t.Errorf("a catch-all domain and a Proxy whose Service is not a load balancer are not problems:\n%s", ps)
	}
	for _, kind := range []string{"Proxy", "proxy"} {
		if _, ok := src.(source.ObjectLookup).LookupObject(kind, "gloo-system", "targeted"); !ok {
			t.Errorf("LookupObject(%s) found nothing", kind)
		}
	}
	if _, ok := src.(source.ObjectLookup).LookupObject("VirtualService", "team-a", "agg"); !ok {
		t.Error("LookupObject(VirtualService) found nothing")
	}
	// An event's plan reads, for each Proxy alone, what the full listing publishes at its names; the
	// Proxy outside --gloo-namespace publishes nothing either way.
	var proxies []string
	for _, name := range []string{"gateway-proxy", "targeted", "ingressed", "internal-proxy", "orphan", "dangling", "badgw"} {
		proxies = append(proxies, "proxy/gloo-system/"+name)
	}
	sourcetest.ObjectEndpointsMatch(t, src.(source.ObjectSource), append(proxies, "proxy/elsewhere/gateway-proxy"))
	named := make(chan string, 10)
	src.(source.ObjectSource).AddObjectHandler(func(r string) { named <- r })
	orphan, err := dyn.Resource(ProxyResource).Namespace("gloo-system").Get(context.Background(), "orphan", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	orphan.SetAnnotations(map[string]string{sourcetest.AnnotationPrefix + "ttl": "30"})
	if _, err := dyn.Resource(ProxyResource).Namespace("gloo-system").Update(context.Background(), orphan, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-named:
		if r != "proxy/gloo-system/orphan" {
			t.Errorf("a Proxy's update names %q", r)
		}
	case <-time.After(30 * time.Second):
		t.Error("no event for a Proxy's update")
	}

	_, got, _ = sourcetest.Endpoints(t, Kind(), env, source.Config{GlooNamespaces: []string{"elsewhere"}})
	if want := []string{"elsewhere.example.com A 203.0.113.11 proxy/elsewhere/gateway-proxy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--gloo-namespace=elsewhere: %v", got)
	}
	_, got, _ = sourcetest.Endpoints(t, Kind(), env, source.Config{AnnotationFilter: sourcetest.AnnotationPrefix + "target"})
	if len(got) != 1 || !strings.HasPrefix(got[0], "agg.example.com") {
		t.Errorf("--annotation-filter (on the Proxy): %v", got)
	}
}

// Proxies and what they reference, in manifest files (zonekeeper plan, --source=manifest), give the
// records the cluster gives.
func TestProxiesFromManifests(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: v1\nkind: Service\nmetadata: {name: gateway-proxy, namespace: gloo-system}\n" +
		"spec: {type: LoadBalancer, ports: [{port: 80}]}\nstatus: {loadBalancer: {ingress: [{ip: 192.0.2.1}]}}\n---\n" +
		"apiVersion: gateway.solo.io/v1\nkind: VirtualService\nmetadata:\n  name: web\n  namespace: apps\n" +
		"  annotations: {external-dns.alpha.kubernetes.io/ttl: \"30\"}\nspec: {}\n---\n" +
		"apiVersion: gloo.solo.io/v1\nkind: Proxy\nmetadata: {name: gateway-proxy, namespace: gloo-system}\n" +
		"spec:\n  listeners:\n  - httpListener:\n      virtualHosts:\n      - domains: [web.example.com]\n" +
		"        metadata: {sources: [{kind: \"*v1.VirtualService\", name: web, namespace: apps}]}\n"
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := source.NewManifestWith(dir, source.Config{}, []source.Kind{Kind()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := sourcetest.Describe(res.Endpoints); !reflect.DeepEqual(got, []string{"web.example.com A 192.0.2.1 proxy/gloo-system/gateway-proxy ttl=30"}) {
		t.Errorf("from manifests: %v (problems %s)", got, sourcetest.Problems(res.Problems))
	}
}

// createIngress creates an Ingress with a load balancer hostname in its status.
func createIngress(t *testing.T, kube kubernetes.Interface, ns, name, lbHostname string) {
	t.Helper()
	ctx := context.Background()
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: "x", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
	created, err := kube.NetworkingV1().Ingresses(ns).Create(ctx, ing, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: lbHostname}}
	if _, err := kube.NetworkingV1().Ingresses(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
