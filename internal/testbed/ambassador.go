package testbed

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// EmissaryModule is the Emissary-ingress release whose Host CRD the tests install: the one external-dns
// v0.23.0 is built against. Its module ships the CRDs it installs in
// manifests/emissary/emissary-crds.yaml.in (the generated pkg/api/getambassador.io/crds.yaml is not
// structural before Emissary's fix-crds step); Hosts are served as v2 (stored) and v3alpha1.
const EmissaryModule = "github.com/emissary-ingress/emissary/v3@v3.10.0"

// InstallAmbassador installs the Host CRD of EmissaryModule. The published CRD converts between its
// versions with Emissary's conversion webhook (emissary-apiext), which does not run here; the CRD is
// installed with conversion strategy None instead, under which the API server only rewrites
// apiVersion. That is exact for what the sources read (metadata and spec.hostname, the same field in
// v2 and v3alpha1).
func InstallAmbassador(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	root, err := moduleDir(EmissaryModule)
	if err != nil {
		t.Fatal(err)
	}
	file := "manifests/emissary/emissary-crds.yaml.in"
	docs, err := crdDocuments(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatalf("%s %s: %v", EmissaryModule, file, err)
	}
	var crds []*unstructured.Unstructured
	for _, d := range docs {
		if d.GetName() != "hosts.getambassador.io" {
			continue
		}
		unstructured.RemoveNestedField(d.Object, "spec", "conversion")
		if err := unstructured.SetNestedField(d.Object, "None", "spec", "conversion", "strategy"); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, d)
	}
	if len(crds) != 1 {
		t.Fatalf("%s %s: no hosts.getambassador.io CRD", EmissaryModule, file)
	}
	return InstallCRDs(t, k.Config, EmissaryModule, crds)
}
