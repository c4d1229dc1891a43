package testbed

import "testing"

// KongModule is the Kong Ingress Controller release whose TCPIngress CRD the tests install: the last
// v2 release, whose CRD still serves configuration.konghq.com/v1beta1, the version external-dns reads.
// Its module ships the CRDs one per file in config/crd/bases.
const KongModule = "github.com/kong/kubernetes-ingress-controller/v2@v2.12.3"

// InstallKong installs the TCPIngress CRD of KongModule.
func InstallKong(t testing.TB, k *KubeAPIServer) []string {
	t.Helper()
	return InstallModuleFileCRDs(t, k, KongModule, "config/crd/bases/configuration.konghq.com_tcpingresses.yaml", "tcpingresses.configuration.konghq.com")
}
