package testbed

import "testing"

// OpenShiftAPIModule is the OpenShift API release whose Route CRD the tests install: the one
// external-dns v0.21.0 is built against.
const OpenShiftAPIModule = "github.com/openshift/api@v0.0.0-20251015095338-264e80a2b6e7"

// InstallOpenShiftRoutes installs the Route CRD (route.openshift.io/v1) of OpenShiftAPIModule.
func InstallOpenShiftRoutes(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleFileCRDs(t, k, OpenShiftAPIModule, "route/v1/zz_generated.crd-manifests/routes.crd.yaml", "routes.route.openshift.io")
}
