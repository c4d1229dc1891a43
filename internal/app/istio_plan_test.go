package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zonekeeper plan reads Istio objects from manifests as the cluster sources would (issue 10 items 2
// and 6): the Gateway takes the address of the Service it selects, the VirtualService bound to it too.
func TestPlanFromIstioManifests(t *testing.T) {
	dir := t.TempDir()
	doc := `apiVersion: v1
kind: Service
metadata: {name: ingressgateway, namespace: istio-system}
spec:
  type: LoadBalancer
  selector: {istio: ingressgateway}
  ports: [{name: http, port: 80}]
status: {loadBalancer: {ingress: [{ip: 192.0.2.30}]}}
---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: public, namespace: istio-system}
spec:
  selector: {istio: ingressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: ["gw.example.com", "*/*.apps.example.com"]}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: shop, namespace: web}
spec:
  hosts: [shop.apps.example.com]
  gateways: [istio-system/public, mesh]
`
	if err := os.WriteFile(filepath.Join(dir, "istio.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"plan", "--source=manifest", "--manifest=" + dir, "--provider=inmemory",
		"--inmemory-zone=example.com", "--txt-owner-id=plan"}, &out, &errOut, func(string) string { return "" })
	if code != ExitHasChanges {
		t.Fatalf("zonekeeper plan exited %d, want %d (changes):\n%s\n%s", code, ExitHasChanges, out.String(), errOut.String())
	}
	for _, want := range []string{"CREATE  gw.example.com A 192.0.2.30 (gateway/istio-system/public)",
		"CREATE  shop.apps.example.com A 192.0.2.30 (virtualservice/web/shop)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the plan lacks %q:\n%s\n%s", want, out.String(), errOut.String())
		}
	}
}
