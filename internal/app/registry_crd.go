package app

import (
	"fmt"
	"log/slog"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry"
	"github.com/zonekeeper/zonekeeper/internal/registry/crd"
)

// buildCRDRegistry is --registry=crd: ownership in external-dns's DNSRecord objects.
func buildCRDRegistry(cfg config.Config, p provider.Provider, kube kubeAccess, log *slog.Logger) (registry.Registry, error) {
	ns := cfg.CRDRegistryNamespace
	if ns == "" {
		ns = currentNamespace(cfg.Kubeconfig)
		log.Info("--crd-registry-namespace not set: DNSRecords are kept in the current namespace", "namespace", ns)
	}
	reg, err := crd.New(p, crd.Config{Client: kube.dynamic, Namespace: ns, OwnerID: cfg.TXTOwnerID, Log: log})
	if err != nil {
		return nil, fmt.Errorf("--registry=crd: %w", err)
	}
	return reg, nil
}

// currentNamespace is external-dns's default for --crd-registry-namespace: the namespace of the
// kubeconfig's current context (--kubeconfig, else $KUBECONFIG or ~/.kube/config), in a pod the pod's
// (POD_NAMESPACE or the service account's namespace file), else "default".
func currentNamespace(kubeconfig string) string {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace()
	if err != nil || ns == "" {
		return "default"
	}
	return ns
}
