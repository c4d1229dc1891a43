package gateway

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// kind makes the --source kind of one route kind. It reads Gateways, its routes and Namespaces
// (allowedRoutes namespace selectors), with get, list and watch.
func kind(a adapter) source.Kind {
	return source.Kind{
		Name:    "gateway-" + a.label(),
		Cluster: true,
		Labels:  []string{a.label()},
		Reads: func(cfg source.Config) []source.Resource {
			reads := []source.Resource{
				// Gateways are read in --gateway-namespace: in every namespace when it is unset, even
				// under --namespace (a ClusterRole in a namespaced install).
				{Group: group, Version: "v1", Resource: "gateways", CRD: true, ClusterScoped: cfg.GatewayNamespace == ""},
				{Group: group, Version: a.version, Resource: a.resource, CRD: true},
				{Version: "v1", Resource: "namespaces", ClusterScoped: true},
			}
			if cfg.GatewayListenerSets { // in every namespace
				reads = append(reads, source.Resource{Group: group, Version: "v1", Resource: "listenersets", CRD: true, ClusterScoped: true})
			}
			return reads
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			return newSource(ctx, env, a)
		},
		Static: staticKind(a),
	}
}

// Kinds returns the five Gateway API route kinds.
func Kinds() []source.Kind {
	return []source.Kind{HTTPRouteKind(), GRPCRouteKind(), TLSRouteKind(), TCPRouteKind(), UDPRouteKind()}
}
