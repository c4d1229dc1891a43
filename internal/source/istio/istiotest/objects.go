// Package istiotest builds the Istio objects (and the Services their Gateways select) that the tests
// of the istio sources create on a real API server.
package istiotest

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
)

// Gateway builds a networking.istio.io/v1 Gateway with one server per hosts list, the selector, and
// annotations kv (sourcetest.Annotations).
func Gateway(ns, name string, selector map[string]string, servers [][]string, kv ...string) *unstructured.Unstructured {
	var srvs []any
	for i, hosts := range servers {
		hs := make([]any, len(hosts))
		for j, h := range hosts {
			hs[j] = h
		}
		srvs = append(srvs, map[string]any{
			"port":  map[string]any{"number": int64(80 + i), "name": "http-" + string(rune('a'+i)), "protocol": "HTTP"},
			"hosts": hs,
		})
	}
	spec := map[string]any{"servers": srvs}
	if selector != nil {
		sel := map[string]any{}
		for k, v := range selector {
			sel[k] = v
		}
		spec["selector"] = sel
	}
	return sourcetest.Object("networking.istio.io/v1", "Gateway", ns, name, sourcetest.Annotations(kv...), spec, nil)
}

// VirtualService builds a networking.istio.io/v1 VirtualService with hosts, gateways, exportTo (nil
// for none) and annotations kv.
func VirtualService(ns, name string, hosts, gateways, exportTo []string, kv ...string) *unstructured.Unstructured {
	spec := map[string]any{"hosts": strs(hosts),
		"http": []any{map[string]any{"route": []any{map[string]any{"destination": map[string]any{"host": "backend"}}}}}}
	if gateways != nil {
		spec["gateways"] = strs(gateways)
	}
	if exportTo != nil {
		spec["exportTo"] = strs(exportTo)
	}
	return sourcetest.Object("networking.istio.io/v1", "VirtualService", ns, name, sourcetest.Annotations(kv...), spec, nil)
}

// Service builds a LoadBalancer Service with a pod selector, external IPs, and load balancer status
// entries: an address with a letter in it is a hostname, anything else an IP.
func Service(ns, name string, selector map[string]string, externalIPs, lb []string) *unstructured.Unstructured {
	sel := map[string]any{}
	for k, v := range selector {
		sel[k] = v
	}
	spec := map[string]any{"type": "LoadBalancer", "selector": sel,
		"ports": []any{map[string]any{"name": "http", "port": int64(80), "protocol": "TCP"}}}
	if externalIPs != nil {
		spec["externalIPs"] = strs(externalIPs)
	}
	var status map[string]any
	if len(lb) > 0 {
		var ingress []any
		for _, a := range lb {
			key := "ip"
			if strings.ContainsAny(a, "ghijklmnopqrstuvwxyz") {
				key = "hostname"
			}
			ingress = append(ingress, map[string]any{key: a})
		}
		status = map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}
	}
	return sourcetest.Object("v1", "Service", ns, name, nil, spec, status)
}

func strs(in []string) []any {
	out := make([]any, len(in))
	for i, s := range in {
		out[i] = s
	}
	return out
}
