package testbed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// GatewayAPIModule is the Gateway API release whose CRDs the tests install: the one external-dns
// v0.21.0 (the compatibility peer) is built against. Its experimental channel serves every version
// either implementation reads (Gateway, HTTPRoute and GRPCRoute v1; TLSRoute, TCPRoute and UDPRoute
// v1alpha2; ListenerSet v1).
const GatewayAPIModule = "sigs.k8s.io/gateway-api@v1.5.1"

// InstallGatewayAPI installs the experimental channel of GatewayAPIModule's CRDs.
func InstallGatewayAPI(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleCRDs(t, k.Config, GatewayAPIModule, "config/crd/experimental")
}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// InstallModuleCRDs installs the CustomResourceDefinitions a Go module publishes: the module
// (path@version) comes from the Go module cache through `go mod download` (the module proxy when it
// is not cached), every *.yaml under dir is read, and every CRD document in them is created. Other
// documents (admission policies) are left out. It waits until every CRD is Established and returns
// their names, sorted.
func InstallModuleCRDs(t testing.TB, cfg *rest.Config, module, dir string) []string {
	t.Helper()
	root, err := moduleDir(module)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no YAML files in %s (%v)", module, dir, err)
	}
	var crds []*unstructured.Unstructured
	for _, f := range files {
		docs, err := crdDocuments(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		crds = append(crds, docs...)
	}
	return InstallCRDs(t, cfg, module, crds)
}

// InstallCRDs creates crds (read from origin, a module, for errors), waits until every one is
// Established and served by discovery, and returns their names, sorted.
func InstallCRDs(t testing.TB, cfg *rest.Config, origin string, crds []*unstructured.Unstructured) []string {
	t.Helper()
	module := origin
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var names []string
	for _, crd := range crds {
		if _, err := dyn.Resource(crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("CRD %s from %s: %v", crd.GetName(), module, err)
		}
		names = append(names, crd.GetName())
	}
	sort.Strings(names)
	Eventually(t, 60*time.Second, "CRDs of "+module+" established", func() error {
		for _, n := range names {
			u, err := dyn.Resource(crdResource).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !established(u) {
				return fmt.Errorf("%s is not Established", n)
			}
		}
		return nil
	})
	// Established comes before discovery lists the resource; informers and access checks go by
	// discovery.
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	Eventually(t, 60*time.Second, "CRDs of "+module+" in discovery", func() error {
		for _, n := range names {
			u, err := dyn.Resource(crdResource).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return err
			}
			g, _, _ := unstructured.NestedString(u.Object, "spec", "group")
			plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
			versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
			for _, v := range versions {
				m, _ := v.(map[string]any)
				if served, _ := m["served"].(bool); !served {
					continue
				}
				list, err := disc.ServerResourcesForGroupVersion(g + "/" + fmt.Sprint(m["name"]))
				if err != nil {
					return err
				}
				found := false
				for _, r := range list.APIResources {
					found = found || r.Name == plural
				}
				if !found {
					return fmt.Errorf("%s/%v %s not in discovery", g, m["name"], plural)
				}
			}
		}
		return nil
	})
	return names
}

// moduleDir returns where the module cache holds module (path@version), downloading it if needed.
// It runs outside any main module so that no go.mod is read or changed.
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", module, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %v: %s", module, err, stderr.String())
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory in %s", module, out)
	}
	return info.Dir, nil
}

// crdDocuments returns the CustomResourceDefinition documents of a multi-document YAML file.
func crdDocuments(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var out []*unstructured.Unstructured
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.GetKind() == "CustomResourceDefinition" && strings.HasPrefix(u.GetAPIVersion(), "apiextensions.k8s.io/") {
			out = append(out, u)
		}
	}
}

func established(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
