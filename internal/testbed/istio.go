package testbed

import "testing"

// IstioAPIModule is the Istio release whose CRDs the tests install: the istio.io/api version
// external-dns v0.21.0 (the compatibility peer) is built against. Its module ships every Istio CRD in
// kubernetes/customresourcedefinitions.gen.yaml.
const IstioAPIModule = "istio.io/api@v1.29.1"

// InstallIstio installs the Gateway and VirtualService CRDs of IstioAPIModule (networking.istio.io
// v1alpha3, v1beta1 and v1, all served).
func InstallIstio(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleFileCRDs(t, k, IstioAPIModule, "kubernetes/customresourcedefinitions.gen.yaml",
		"gateways.networking.istio.io", "virtualservices.networking.istio.io")
}
