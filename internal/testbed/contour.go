package testbed

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ContourModule is the Contour release whose CRDs the tests install: the one external-dns v0.21.0 is
// built against. Its module ships them in examples/contour/01-crds.yaml.
const ContourModule = "github.com/projectcontour/contour@v1.33.3"

// InstallContour installs the HTTPProxy CRD of ContourModule.
func InstallContour(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleFileCRDs(t, k, ContourModule, "examples/contour/01-crds.yaml", "httpproxies.projectcontour.io")
}

// InstallModuleFileCRDs installs the CRDs named (all of them when none is named) from one YAML file of a
// Go module (path@version, from the module cache or the module proxy).
func InstallModuleFileCRDs(t testing.TB, k *KubeAPIServer, module, file string, names ...string) []string {
	t.Helper()
	root, err := moduleDir(module)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := crdDocuments(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatalf("%s %s: %v", module, file, err)
	}
	var crds []*unstructured.Unstructured
	for _, d := range docs {
		keep := len(names) == 0
		for _, n := range names {
			keep = keep || d.GetName() == n
		}
		if keep {
			crds = append(crds, d)
		}
	}
	if len(crds) == 0 || (len(names) > 0 && len(crds) != len(names)) {
		t.Fatalf("%s %s: %d of the CRDs %v", module, file, len(crds), names)
	}
	return InstallCRDs(t, k.Config, module, crds)
}
