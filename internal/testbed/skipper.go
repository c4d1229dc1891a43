package testbed

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// SkipperModule is the Skipper release whose RouteGroup CRD (zalando.org/v1) the tests install. Its
// module ships it in dataclients/kubernetes/deploy/apply/routegroups_crd.yaml.
const SkipperModule = "github.com/zalando/skipper@v0.23.0"

// InstallSkipper installs the RouteGroup CRD of SkipperModule.
func InstallSkipper(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleFileCRDs(t, k, SkipperModule, "dataclients/kubernetes/deploy/apply/routegroups_crd.yaml", "routegroups.zalando.org")
}

// ServingCertFile is the file of the API server's self-signed serving certificate and the CA that signed
// it, which kube-apiserver wrote into its --cert-dir: what a client that verifies the server against
// its own roots (external-dns's skipper-routegroup source, through SSL_CERT_FILE) must trust.
func (k *KubeAPIServer) ServingCertFile() string {
	return filepath.Join(k.proc.dir, "certs", "apiserver.crt")
}

// InstallSkipperInGroup installs SkipperModule's RouteGroup CRD moved to another API group (for
// --skipper-routegroup-groupversion): the same schema, served as <group>/v1.
func InstallSkipperInGroup(t testing.TB, k *KubeAPIServer, group string) []string {
	t.Helper()
	root, err := moduleDir(SkipperModule)
	if err != nil {
		t.Fatal(err)
	}
	file := "dataclients/kubernetes/deploy/apply/routegroups_crd.yaml"
	docs, err := crdDocuments(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil || len(docs) != 1 || docs[0].GetName() != "routegroups.zalando.org" {
		t.Fatalf("%s %s: %v (%d CRDs)", SkipperModule, file, err, len(docs))
	}
	crd := docs[0]
	crd.SetName("routegroups." + group)
	if err := unstructured.SetNestedField(crd.Object, group, "spec", "group"); err != nil {
		t.Fatal(err)
	}
	return InstallCRDs(t, k.Config, SkipperModule, []*unstructured.Unstructured{crd})
}
