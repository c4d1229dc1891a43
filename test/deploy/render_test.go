// Package deploy tests what users deploy: the Helm chart in charts/zonekeeper and the kustomize manifests
// in deploy/manifests. Each is rendered by the real tool (helm, kubectl kustomize), applied to a real
// kube-apiserver with strict field validation, and its RBAC is exercised by running zonekeeper as the
// ServiceAccount it creates.
package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtimeconv "k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// repoPath returns a path relative to the repository root, wherever the test runs from.
func repoPath(t testing.TB, rel string) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", rel)
}

// chartRender is one `helm template` call: a release, a namespace, a values file and --set flags, as a
// values file or a Terraform helm_release would pass them.
type chartRender struct {
	release   string
	namespace string
	values    string   // YAML, written to a file and passed with -f; may be empty
	set       []string // each passed as --set
}

// helmTemplate renders the chart and returns its objects, or the error helm printed.
func helmTemplate(t testing.TB, r chartRender) ([]*unstructured.Unstructured, error) {
	t.Helper()
	helm := testbed.Binary(t, "helm")
	args := []string{"template", r.release, repoPath(t, "charts/zonekeeper"), "--namespace", r.namespace}
	if r.values != "" {
		f := filepath.Join(t.TempDir(), "values.yaml")
		if err := os.WriteFile(f, []byte(r.values), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--values", f)
	}
	for _, s := range r.set {
		args = append(args, "--set", s)
	}
	out, err := runTool(t, helm, args...)
	if err != nil {
		return nil, err
	}
	return decodeObjects(t, out), nil
}

// mustHelmTemplate is helmTemplate for value sets that must render.
func mustHelmTemplate(t testing.TB, r chartRender) []*unstructured.Unstructured {
	t.Helper()
	objs, err := helmTemplate(t, r)
	if err != nil {
		t.Fatalf("helm template %s: %v", r.release, err)
	}
	return objs
}

// kustomize renders a kustomization directory with `kubectl kustomize` (kustomize v5 is built into kubectl).
func kustomize(t testing.TB, dir string) []*unstructured.Unstructured {
	t.Helper()
	kubectl := testbed.Binary(t, "kubectl")
	out, err := runTool(t, kubectl, "kustomize", repoPath(t, dir))
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v", dir, err)
	}
	return decodeObjects(t, out)
}

func runTool(t testing.TB, bin string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		return nil, errors.New(strings.TrimSpace(stderr.String()) + " (" + err.Error() + ")")
	}
	return stdout.Bytes(), nil
}

// decodeObjects splits a multi-document YAML stream into objects, skipping empty documents.
func decodeObjects(t testing.TB, data []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("decode rendered YAML: %v\n%s", err, data)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

// find returns the only object of a kind (and name, when given), failing the test otherwise.
func find(t testing.TB, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %q among the rendered objects, found %d: %v", kind, name, len(found), kinds(objs))
	}
	return found[0]
}

func countKind(objs []*unstructured.Unstructured, kind string) int {
	n := 0
	for _, o := range objs {
		if o.GetKind() == kind {
			n++
		}
	}
	return n
}

func kinds(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

// typed converts a rendered object into its API type.
func typed[T any](t testing.TB, o *unstructured.Unstructured) *T {
	t.Helper()
	var v T
	if err := runtimeconv.DefaultUnstructuredConverter.FromUnstructured(o.Object, &v); err != nil {
		t.Fatalf("%s/%s: %v", o.GetKind(), o.GetName(), err)
	}
	return &v
}

func deployment(t testing.TB, objs []*unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	return typed[appsv1.Deployment](t, find(t, objs, "Deployment", ""))
}

// container returns the zonekeeper container of a Deployment.
func container(t testing.TB, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "zonekeeper" {
			return c
		}
	}
	t.Fatalf("deployment %s has no zonekeeper container", d.Name)
	return corev1.Container{}
}

// roles returns the rules of every Role and ClusterRole, keyed by kind/name.
func roles(t testing.TB, objs []*unstructured.Unstructured) map[string][]rbacv1.PolicyRule {
	t.Helper()
	out := map[string][]rbacv1.PolicyRule{}
	for _, o := range objs {
		switch o.GetKind() {
		case "ClusterRole":
			out["ClusterRole/"+o.GetName()] = typed[rbacv1.ClusterRole](t, o).Rules
		case "Role":
			out["Role/"+o.GetName()] = typed[rbacv1.Role](t, o).Rules
		}
	}
	return out
}
