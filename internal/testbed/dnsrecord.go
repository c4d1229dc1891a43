package testbed

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ExternalDNSV023Module is the external-dns release whose DNSRecord CRD (the CRD registry's,
// --registry=crd) the tests install, as that release ships it.
const ExternalDNSV023Module = "sigs.k8s.io/external-dns@v0.23.0"

// dnsRecordCRDFile is where ExternalDNSV023Module keeps the DNSRecord CRD (its chart's crds/ copy
// differs only in a controller-gen annotation).
const dnsRecordCRDFile = "config/crd/standard/dnsrecords.externaldns.k8s.io.yaml"

// DNSRecordCRDName is the DNSRecord CRD's object name.
const DNSRecordCRDName = "dnsrecords.externaldns.k8s.io"

// ExternalDNSDNSRecordCRD is the DNSRecord CRD of ExternalDNSV023Module.
func ExternalDNSDNSRecordCRD(t testing.TB) *unstructured.Unstructured {
	t.Helper()
	root, err := externalDNSV023Dir()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := crdDocuments(filepath.Join(root, filepath.FromSlash(dnsRecordCRDFile)))
	if err != nil || len(docs) != 1 || docs[0].GetName() != DNSRecordCRDName {
		t.Fatalf("%s %s: %d documents, %v", ExternalDNSV023Module, dnsRecordCRDFile, len(docs), err)
	}
	return docs[0]
}

// InstallExternalDNSDNSRecordCRD installs external-dns v0.23.0's own DNSRecord CRD.
func InstallExternalDNSDNSRecordCRD(t testing.TB, k *KubeAPIServer) {
	t.Helper()
	InstallCRDs(t, k.Config, ExternalDNSV023Module, []*unstructured.Unstructured{ExternalDNSDNSRecordCRD(t)})
}

// InstallCRDFile installs the CRDs of a YAML file (the project's config/crd).
func InstallCRDFile(t testing.TB, k *KubeAPIServer, path string) []string {
	t.Helper()
	return InstallCRDs(t, k.Config, path, ReadCRDFile(t, path))
}

// externalDNSV023Dir finds the module in the module cache, where hack/testbed.sh's build of the peer
// leaves it; else it asks `go mod download`, which refuses the module under a Go older than its go
// line (1.27) and then says so.
func externalDNSV023Dir() (string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err == nil {
		dir := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(ExternalDNSV023Module))
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
	}
	return moduleDir(ExternalDNSV023Module)
}

// ReadCRDFile returns the CRDs of a YAML file.
func ReadCRDFile(t testing.TB, path string) []*unstructured.Unstructured {
	t.Helper()
	docs, err := crdDocuments(path)
	if err != nil || len(docs) == 0 {
		t.Fatalf("%s: %d CRDs, %v", path, len(docs), err)
	}
	return docs
}
