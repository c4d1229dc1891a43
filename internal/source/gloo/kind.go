package gloo

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// The resources the source reads. Gloo's own types are not linked: small views of the fields read.
var (
	ProxyResource          = schema.GroupVersionResource{Group: "gloo.solo.io", Version: "v1", Resource: "proxies"}
	VirtualServiceResource = schema.GroupVersionResource{Group: "gateway.solo.io", Version: "v1", Resource: "virtualservices"}
	GatewayResource        = schema.GroupVersionResource{Group: "gateway.solo.io", Version: "v1", Resource: "gateways"}
)

const (
	proxyKind = "Proxy"
	// label is the kind of the resource label, "proxy/<ns>/<name>".
	label = "proxy"
)

// Kind is --source=gloo-proxy. It reads, in every namespace (as external-dns does: a Proxy's
// VirtualServices, Gateways and Ingresses may be anywhere), Proxies, VirtualServices, Gateways,
// Services and Ingresses with get, list and watch, and waits for the Gloo CRDs when they are missing.
func Kind() source.Kind {
	return source.Kind{
		Name:    "gloo-proxy",
		Cluster: true,
		Labels:  []string{label},
		Reads: func(source.Config) []source.Resource {
			crd := func(r schema.GroupVersionResource) source.Resource {
				return source.Resource{Group: r.Group, Version: r.Version, Resource: r.Resource, CRD: true, ClusterScoped: true}
			}
			return []source.Resource{
				crd(ProxyResource), crd(VirtualServiceResource), crd(GatewayResource),
				{Version: "v1", Resource: "services", ClusterScoped: true},
				{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", ClusterScoped: true},
			}
		},
		New:    newSource,
		Static: staticKind(),
	}
}
