package testbed

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// GlooModule is the newest Gloo release the Go module proxy serves (later ones are refused, 403). Its
// Helm chart ships the CRDs, in install/helm/gloo/templates/100-gloo-crds.yaml: schema-less
// apiextensions.k8s.io/v1beta1 definitions, as solo-kit generated them. The Proxy, VirtualService and
// Gateway kinds, groups and versions (gloo.solo.io/v1, gateway.solo.io/v1) are the ones every later
// Gloo Edge release serves.
const GlooModule = "github.com/solo-io/gloo@v1.0.0"

// InstallGloo installs the Proxy, VirtualService and Gateway CRDs of GlooModule. Two mechanical steps
// make the published file installable on today's API server: the chart's template lines ({{ … }}: the
// crds.create switch and an installationId label) are dropped, and each v1beta1 definition is written
// as apiextensions.k8s.io/v1 with the schema the API server itself gave schema-less v1beta1 CRDs when
// it converted them (an object that keeps unknown fields). Names, group, scope and versions are the
// module's.
func InstallGloo(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	root, err := moduleDir(GlooModule)
	if err != nil {
		t.Fatal(err)
	}
	file := "install/helm/gloo/templates/100-gloo-crds.yaml"
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if !bytes.Contains(line, []byte("{{")) {
			kept = append(kept, line)
		}
	}
	plain := filepath.Join(t.TempDir(), "gloo-crds.yaml")
	if err := os.WriteFile(plain, bytes.Join(kept, []byte("\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	docs, err := crdDocuments(plain)
	if err != nil {
		t.Fatalf("%s %s: %v", GlooModule, file, err)
	}
	want := map[string]bool{"proxies.gloo.solo.io": true, "virtualservices.gateway.solo.io": true, "gateways.gateway.solo.io": true}
	var crds []*unstructured.Unstructured
	for _, d := range docs {
		if !want[d.GetName()] {
			continue
		}
		if !strings.HasPrefix(d.GetAPIVersion(), "apiextensions.k8s.io/") {
			t.Fatalf("%s: %s is %s", file, d.GetName(), d.GetAPIVersion())
		}
		d.SetAPIVersion("apiextensions.k8s.io/v1")
		unstructured.RemoveNestedField(d.Object, "spec", "version")
		versions, _, _ := unstructured.NestedSlice(d.Object, "spec", "versions")
		for i, v := range versions {
			m := v.(map[string]any)
			m["schema"] = map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
			versions[i] = m
		}
		if err := unstructured.SetNestedSlice(d.Object, versions, "spec", "versions"); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, d)
	}
	if len(crds) != len(want) {
		t.Fatalf("%s %s: %d of the CRDs %v", GlooModule, file, len(crds), want)
	}
	return InstallCRDs(t, k.Config, GlooModule, crds)
}
