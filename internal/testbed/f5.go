package testbed

import "testing"

// F5Module is the F5 Container Ingress Services release whose CRDs the tests install: the one
// external-dns v0.21.0 and v0.23.0 are built against. Its module ships them all in one file.
const F5Module = "github.com/F5Networks/k8s-bigip-ctlr/v2@v2.20.2"

// InstallF5 installs the VirtualServer and TransportServer CRDs of F5Module.
func InstallF5(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleFileCRDs(t, k, F5Module, "docs/config_examples/customResourceDefinitions/customresourcedefinitions.yml",
		"virtualservers.cis.f5.com", "transportservers.cis.f5.com")
}
