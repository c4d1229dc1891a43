package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

const manifest = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: test
  listeners:
  - {name: web, port: 80, protocol: HTTP, hostname: "*.example.com", allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {team: web}}}}}
  - {name: tcp, port: 9000, protocol: TCP, allowedRoutes: {namespaces: {from: All}}}
status:
  addresses: [{type: IPAddress, value: 192.0.2.5}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: site, namespace: web, annotations: {external-dns.alpha.kubernetes.io/ttl: "60"}}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [www.example.com, www.example.org]
status:
  parents:
  - parentRef: {name: gw, namespace: infra}
    controllerName: example.net/gw
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: db, namespace: web, annotations: {external-dns.alpha.kubernetes.io/hostname: db.example.com}}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: db, port: 5432}]}]
status:
  parents:
  - parentRef: {name: gw, namespace: infra}
    controllerName: example.net/gw
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}]
`

// Routes and Gateways decoded from manifests (zonekeeper plan) give the records they give from
// the API server; each kind takes only its own routes.
func TestStaticFromManifest(t *testing.T) {
	objs := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"team": "web"}}}}
	for _, doc := range strings.Split(manifest, "\n---\n") {
		obj, _, err := gwscheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, obj)
	}
	for kind, want := range map[string][]string{
		"gateway-httproute": {"www.example.com A 192.0.2.5 httproute/web/site ttl=60"},
		"gateway-tcproute":  {"db.example.com A 192.0.2.5 tcproute/web/db"},
		"gateway-udproute":  nil,
	} {
		s, err := NewStatic(kind, source.Config{}, objs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Endpoints(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		expect(t, describe(res.Endpoints), want)
		if _, ok := s.LookupObject("httproute", "web", "site"); ok {
			t.Error("a manifest route was offered for Events")
		}
	}
	if _, err := NewStatic("ingress", source.Config{}, objs); err == nil {
		t.Error("NewStatic took a kind that is not a Gateway API source")
	}
	// Without the namespace, the Selector listener admits nothing.
	s, err := NewStatic("gateway-httproute", source.Config{}, objs[1:])
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := s.Endpoints(context.Background()); len(res.Endpoints) != 0 {
		t.Errorf("without its Namespace the route was admitted: %v", describe(res.Endpoints))
	}
}

// --source=manifest (and zonekeeper plan) publish routes from files through the gateway kinds' Static:
// a Namespace document feeds the Selector listener, an Ingress in the same files is published beside
// them, and a kind nobody reads is a problem naming the kinds that are.
func TestManifestSourceReadsGatewayKinds(t *testing.T) {
	dir := t.TempDir()
	files := manifest + `
---
apiVersion: v1
kind: Namespace
metadata: {name: web, labels: {team: web}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop, namespace: web}
spec: {rules: [{host: shop.example.com}]}
status: {loadBalancer: {ingress: [{ip: 192.0.2.9}]}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: test}
spec: {controllerName: example.net/gw}
`
	if err := os.WriteFile(filepath.Join(dir, "all.yaml"), []byte(files), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := source.NewManifestWith(dir, source.DefaultConfig(), Kinds())
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	expect(t, describe(res.Endpoints), []string{
		"db.example.com A 192.0.2.5 tcproute/web/db",
		"shop.example.com A 192.0.2.9 ingress/web/shop",
		"www.example.com A 192.0.2.5 httproute/web/site ttl=60",
	})
	if len(res.Problems) != 1 || res.Problems[0].Object.Kind != "GatewayClass" || !strings.Contains(res.Problems[0].Reason, "HTTPRoute (gateway.networking.k8s.io)") {
		t.Errorf("problems = %+v, want one naming the GatewayClass and the kinds manifests may hold", res.Problems)
	}
	// Without the gateway kinds, routes are problems as before.
	m, err = source.NewManifest(dir, source.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := m.Endpoints(context.Background()); len(res.Endpoints) != 1 || len(res.Problems) < 3 {
		t.Errorf("without the gateway kinds: %v, problems %+v", describe(res.Endpoints), res.Problems)
	}
}
