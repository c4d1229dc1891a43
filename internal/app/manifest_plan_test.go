package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zonekeeper plan reads Gateway API objects from manifests as the cluster sources would (issue 10
// item 6): the HTTPRoute attached to its Gateway plans a CREATE with the Gateway's address.
func TestPlanFromGatewayManifests(t *testing.T) {
	dir := t.TempDir()
	doc := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: test
  listeners: [{name: web, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
status: {addresses: [{type: IPAddress, value: 192.0.2.5}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: site, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [www.example.com]
status:
  parents:
  - parentRef: {name: gw, namespace: infra}
    controllerName: example.net/gw
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}]
`
	if err := os.WriteFile(filepath.Join(dir, "routes.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"plan", "--source=manifest", "--manifest=" + dir, "--provider=inmemory",
		"--inmemory-zone=example.com", "--txt-owner-id=plan"}, &out, &errOut, func(string) string { return "" })
	if code != ExitHasChanges {
		t.Fatalf("zonekeeper plan exited %d, want %d (changes):\n%s\n%s", code, ExitHasChanges, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "CREATE  www.example.com A 192.0.2.5 (httproute/web/site)") {
		t.Errorf("the plan does not create the route's record:\n%s\n%s", out.String(), errOut.String())
	}
}
