// Package skippertest builds Skipper RouteGroups, status included, for tests.
package skippertest

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// RouteGroup makes a RouteGroup of apiVersion ("zalando.org/v1") with a shunt backend, spec.hosts (none
// when empty), status.loadBalancer.routegroup entries (ips, then lbNames; no status when both are
// empty), labels and annotations kv (sourcetest.Annotations).
func RouteGroup(apiVersion, ns, name string, hosts, ips, lbNames []string, labels map[string]string, kv ...string) *unstructured.Unstructured {
	spec := map[string]any{"backends": []any{map[string]any{"name": "shunt", "type": "shunt"}}}
	if len(hosts) > 0 {
		hs := make([]any, len(hosts))
		for i, h := range hosts {
			hs[i] = h
		}
		spec["hosts"] = hs
	}
	var status map[string]any
	if lb := sourcetest.LoadBalancerEntries(ips, lbNames); len(lb) > 0 {
		status = map[string]any{"loadBalancer": map[string]any{"routegroup": lb}}
	}
	u := sourcetest.Object(apiVersion, "RouteGroup", ns, name, sourcetest.Annotations(kv...), spec, status)
	u.SetLabels(labels)
	return u
}
