package istio

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// GatewayKind is --source=istio-gateway. It reads Gateways and Services in --namespace, with get,
// list and watch (not VirtualServices: a ClusterRole granting gateways and services is enough), and
// waits for the Gateway CRD when it is missing.
func GatewayKind() source.Kind {
	return source.Kind{
		Name:    "istio-gateway",
		Cluster: true,
		Labels:  []string{"gateway"},
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{crd(GatewayResource.Resource), services()}
		},
		New:    func(ctx context.Context, env source.Env) (source.Source, error) { return newSource(ctx, env, false) },
		Static: staticKind(false),
	}
}

// VirtualServiceKind is --source=istio-virtualservice. It reads VirtualServices, the Gateways they
// name and the Services those select, in --namespace, and waits for the CRDs when they are missing.
func VirtualServiceKind() source.Kind {
	return source.Kind{
		Name:    "istio-virtualservice",
		Cluster: true,
		Labels:  []string{"virtualservice"},
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{crd(VirtualServiceResource.Resource), crd(GatewayResource.Resource), services()}
		},
		New:    func(ctx context.Context, env source.Env) (source.Source, error) { return newSource(ctx, env, true) },
		Static: staticKind(true),
	}
}

func crd(resource string) source.Resource {
	return source.Resource{Group: group, Version: "v1", Resource: resource, CRD: true}
}

func services() source.Resource { return source.Resource{Version: "v1", Resource: "services"} }
