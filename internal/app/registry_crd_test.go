package app

import (
	"os"
	"path/filepath"
	"testing"
)

// --crd-registry-namespace defaults as in external-dns v0.23 (pkg/client/config.go CurrentNamespace):
// the namespace of the kubeconfig's current context, else "default".
func TestCRDRegistryNamespaceDefault(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "")
	dir := t.TempDir()
	write := func(name, namespace string) string {
		p := filepath.Join(dir, name)
		kc := "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: k, cluster: {server: 'https://127.0.0.1:6443'}}]\n" +
			"users: [{name: u, user: {token: x}}]\ncontexts: [{name: c, context: {cluster: k, user: u" + namespace + "}}]\n"
		if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := currentNamespace(write("with.yaml", ", namespace: team-dns")); got != "team-dns" {
		t.Errorf("context namespace team-dns: got %q", got)
	}
	if got := currentNamespace(write("without.yaml", "")); got != "default" {
		t.Errorf("context without a namespace: got %q, want default", got)
	}
}
