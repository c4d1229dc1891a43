// Package openshifttest builds OpenShift Routes, status included, for tests.
package openshifttest

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// Entry is one status.ingress entry: {host, routerName, routerCanonicalHostname, admitted}, where
// admitted is the status of its Admitted condition: "True", "False" or "" (no condition).
type Entry [4]string

// Route makes a Route to Service svc-<name>, with spec.host (unless empty), status entries, labels and
// annotations kv (sourcetest.Annotations).
func Route(ns, name, host string, entries []Entry, labels map[string]string, kv ...string) *unstructured.Unstructured {
	spec := map[string]any{"to": map[string]any{"kind": "Service", "name": "svc-" + name}}
	if host != "" {
		spec["host"] = host
	}
	var ingress []any
	for _, e := range entries {
		m := map[string]any{"host": e[0], "routerName": e[1]}
		if e[2] != "" {
			m["routerCanonicalHostname"] = e[2]
		}
		if e[3] != "" {
			m["conditions"] = []any{map[string]any{"type": "Admitted", "status": e[3]}}
		}
		ingress = append(ingress, m)
	}
	var status map[string]any
	if len(ingress) > 0 {
		status = map[string]any{"ingress": ingress}
	}
	u := sourcetest.Object("route.openshift.io/v1", "Route", ns, name, sourcetest.Annotations(kv...), spec, status)
	u.SetLabels(labels)
	return u
}
