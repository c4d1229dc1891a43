package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const manifestMulti = `
# a comment-only document first
---
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    external-dns.alpha.kubernetes.io/hostname: web.example.com
    external-dns.kubernetes.io/ttl: "60"
    kubectl.kubernetes.io/last-applied-configuration: "{}"
spec:
  type: LoadBalancer
  ports: [{port: 80}]
status:
  loadBalancer:
    ingress: [{ip: 203.0.113.10}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: site
  namespace: shop
spec:
  rules: [{host: shop.example.com}]
  tls: [{hosts: [secure.example.com]}]
status:
  loadBalancer:
    ingress: [{hostname: lb.example.net}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1, namespace: default}
`

func TestManifestMultiDocument(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "all.yaml", manifestMulti)
	m, err := NewManifest(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	expectEndpoints(t, r.Endpoints,
		"web.example.com A 203.0.113.10 ttl=60 res=service/default/web",
		"shop.example.com CNAME lb.example.net res=ingress/shop/site",
		"secure.example.com CNAME lb.example.net res=ingress/shop/site",
	)
	findProblem(t, r, endpoint.ObjectRef{Kind: "ConfigMap", Namespace: "default", Name: "settings"}, "kind")
	p2 := findProblem(t, r, endpoint.ObjectRef{Kind: "Widget", Namespace: "default", Name: "w1"}, "kind")
	if !strings.Contains(p2.Reason, "all.yaml") || p2.Value != "example.com/v1/Widget" {
		t.Errorf("unknown kind problem: %+v", p2)
	}
	if len(r.Problems) != 2 {
		t.Errorf("problems: %v", r.Problems)
	}
	// The transform ran: last-applied is not kept in the indexer.
	svc, err := m.services.services.Services("default").Get("web")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := svc.Annotations[lastAppliedAnnotation]; ok {
		t.Error("last-applied-configuration kept")
	}
}

// Built-in kinds outside the groups manifests are decoded with (kube.NewScheme: core, networking and
// discovery v1) are problems naming the object and its kind, as when every built-in group was decoded.
func TestManifestKindsOutsideTheScheme(t *testing.T) {
	p := writeFile(t, t.TempDir(), "other.yaml", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default}
spec: {replicas: 2}
---
apiVersion: networking.k8s.io/v1beta1
kind: Ingress
metadata: {name: old, namespace: default}
`)
	m, err := NewManifest(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for ref, value := range map[endpoint.ObjectRef]string{
		{Kind: "Deployment", Namespace: "default", Name: "api"}: "apps/v1/Deployment",
		{Kind: "Ingress", Namespace: "default", Name: "old"}:    "networking.k8s.io/v1beta1/Ingress",
	} {
		if p := findProblem(t, r, ref, "kind"); p.Value != value || !strings.Contains(p.Reason, "not a kind zonekeeper reads") {
			t.Errorf("%s: %+v", ref.Kind, p)
		}
	}
	if len(r.Endpoints) != 0 || len(r.Problems) != 2 {
		t.Errorf("endpoints %v problems %v", r.Endpoints, r.Problems)
	}
}

func TestManifestDirectoryListsAndJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "list.yml", `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata:
    name: db
    annotations: {external-dns.kubernetes.io/hostname: db.example.com}
  spec: {clusterIP: None}
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata:
    name: db-1
    labels: {kubernetes.io/service-name: db}
  addressType: IPv4
  endpoints:
  - addresses: [10.2.0.1]
    conditions: {ready: true}
    targetRef: {kind: Pod, name: db-0, namespace: default}
  - addresses: [10.2.0.2]
    conditions: {ready: false}
- apiVersion: v1
  kind: Pod
  metadata: {name: db-0, labels: {app: db}}
  spec:
    hostname: db-0
    containers: [{name: c, image: x}]
`)
	writeFile(t, dir, "svc.json", `{"apiVersion":"v1","kind":"ServiceList","items":[
	  {"metadata":{"name":"np","annotations":{"external-dns.alpha.kubernetes.io/hostname":"np.example.com"}},
	   "spec":{"type":"NodePort"}}]}`)
	writeFile(t, dir, "nodes.yaml", `
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  addresses: [{type: ExternalIP, address: 203.0.113.1}]
`)
	writeFile(t, dir, "README.md", "not a manifest: ---\n: [")
	m, err := NewManifest(dir, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	expectNoProblems(t, r)
	expectEndpoints(t, r.Endpoints,
		"db.example.com A 10.2.0.1 res=service/default/db",
		"db-0.db.example.com A 10.2.0.1 res=service/default/db",
		"np.example.com A 203.0.113.1 res=service/default/np",
	)
}

func TestManifestNamespaceFilter(t *testing.T) {
	p := writeFile(t, t.TempDir(), "all.yaml", manifestMulti)
	m, err := NewManifest(p, Config{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Endpoints(context.Background())
	for _, e := range r.Endpoints {
		if !strings.HasPrefix(e.Resource(), "ingress/shop/") {
			t.Errorf("endpoint from outside the namespace: %v", e)
		}
	}
	if len(r.Endpoints) != 2 {
		t.Errorf("endpoints: %v", r.Endpoints)
	}
}

func TestManifestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "broken.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: [unclosed\n")
	_, err := NewManifest(bad, DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), "broken.yaml") {
		t.Fatalf("syntax error: %v, want it to name the file", err)
	}
	if _, err := NewManifest(filepath.Join(dir, "missing.yaml"), DefaultConfig()); err == nil {
		t.Error("missing file accepted")
	}
	// A well-formed document with a bad field type is a Problem, not an error.
	p := writeFile(t, t.TempDir(), "typed.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: 3}\n---\n"+
		"apiVersion: v1\nkind: Service\nmetadata: {name: yy, annotations: {external-dns.alpha.kubernetes.io/hostname: y.example.com}}\nspec: {externalName: y.example.org, type: ExternalName}\n")
	m, err := NewManifest(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Endpoints(context.Background())
	expectEndpoints(t, r.Endpoints, "y.example.com CNAME y.example.org res=service/default/yy")
	if p := findProblem(t, r, endpoint.ObjectRef{Kind: "Service", Name: "x"}, "(object)"); !strings.Contains(p.Reason, "spec.ports") {
		t.Errorf("decode problem does not name the field: %v", p)
	}
}

func TestManifestReloadNotifies(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: a, annotations: {external-dns.alpha.kubernetes.io/hostname: a.example.com}}\nspec: {type: ExternalName, externalName: one.example.org}\n")
	m, err := NewManifest(p, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	m.AddEventHandler(func() { calls++ })
	writeFile(t, dir, "a.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: a, annotations: {external-dns.alpha.kubernetes.io/hostname: a.example.com}}\nspec: {type: ExternalName, externalName: two.example.org}\n")
	if err := m.Reload(); err != nil {
		t.Fatal(err)
	}
	r, _ := m.Endpoints(context.Background())
	expectEndpoints(t, r.Endpoints, "a.example.com CNAME two.example.org res=service/default/a")
	if calls != 1 {
		t.Errorf("handler called %d times", calls)
	}
	writeFile(t, dir, "a.yaml", "kind: [")
	if err := m.Reload(); err == nil {
		t.Error("reload of a broken file succeeded")
	}
	r, _ = m.Endpoints(context.Background())
	expectEndpoints(t, r.Endpoints, "a.example.com CNAME two.example.org res=service/default/a")
}

func TestMulti(t *testing.T) {
	a := writeFile(t, t.TempDir(), "a.yaml", manifestMulti)
	m1, err := NewManifest(a, Config{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	m2, err := NewManifest(a, Config{Namespace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	multi := NewMulti(m1, m2)
	r, err := multi.Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Endpoints) != 3 || len(r.Problems) != 4 { // each manifest reports the two unknown kinds
		t.Errorf("endpoints %v problems %v", r.Endpoints, r.Problems)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := multi.Endpoints(ctx); err == nil {
		t.Error("cancelled context: no error")
	}
}
