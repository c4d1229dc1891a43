package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/source/kinds"
)

// externalDNSSources returns the values external-dns v0.23 takes for --source. Those zonekeeper does not
// implement yet are refused with a message that says so, rather than as an unknown word.
func externalDNSSources() []string {
	return []string{
		"service", "ingress", "node", "pod", "crd", "gateway-httproute", "gateway-grpcroute", "gateway-tlsroute",
		"gateway-tcproute", "gateway-udproute", "istio-gateway", "istio-virtualservice", "ambassador-host",
		"contour-httpproxy", "gloo-proxy", "traefik-proxy", "openshift-route", "skipper-routegroup",
		"kong-tcpingress", "f5-virtualserver", "f5-transportserver", "unstructured", "connector", "fake", "empty",
	}
}

// checkSourceName accepts the kinds in the table of source kinds.
func checkSourceName(name string) error {
	if _, ok := kinds.Lookup(name); ok {
		return nil
	}
	supported := strings.Join(kinds.Names(), ", ")
	if slices.Contains(externalDNSSources(), name) {
		return fmt.Errorf("--source=%s: external-dns's %s source is not implemented by zonekeeper yet (supported: %s)", name, name, supported)
	}
	return fmt.Errorf("--source=%s: unknown source (supported: %s)", name, supported)
}

// NeedsCluster reports whether a configured source reads the Kubernetes API.
func (c Config) NeedsCluster() bool {
	for _, s := range c.Sources {
		if k, ok := kinds.Lookup(s); ok && k.Cluster {
			return true
		}
	}
	return false
}
