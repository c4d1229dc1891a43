// Package kongtest builds Kong TCPIngresses, status included, for tests.
package kongtest

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// TCPIngress makes a configuration.konghq.com/v1beta1 TCPIngress with one rule per host ("" for a
// port-only rule) to Service <name>, status.loadBalancer entries (ips, then lbNames; no status when both
// are empty), labels and annotations kv (sourcetest.Annotations).
func TCPIngress(ns, name string, hosts, ips, lbNames []string, labels map[string]string, kv ...string) *unstructured.Unstructured {
	var rules []any
	for i, h := range hosts {
		r := map[string]any{"port": int64(9000 + i), "backend": map[string]any{"serviceName": name, "servicePort": int64(443)}}
		if h != "" {
			r["host"] = h
		}
		rules = append(rules, r)
	}
	var status map[string]any
	if lb := sourcetest.LoadBalancerEntries(ips, lbNames); len(lb) > 0 {
		status = map[string]any{"loadBalancer": map[string]any{"ingress": lb}}
	}
	u := sourcetest.Object("configuration.konghq.com/v1beta1", "TCPIngress", ns, name, sourcetest.Annotations(kv...), map[string]any{"rules": rules}, status)
	u.SetLabels(labels)
	return u
}
