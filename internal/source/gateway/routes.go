package gateway

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/apis/v1alpha2"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// The route kinds: the API version external-dns v0.21.0 reads, the listener protocol, the informer,
// and where the parts the engine reads live in the typed object.

// HTTPRouteKind is --source=gateway-httproute: gateway.networking.k8s.io/v1 HTTPRoutes.
func HTTPRouteKind() source.Kind { return kind(httpRoute) }

// GRPCRouteKind is --source=gateway-grpcroute: gateway.networking.k8s.io/v1 GRPCRoutes.
func GRPCRouteKind() source.Kind { return kind(grpcRoute) }

// TLSRouteKind is --source=gateway-tlsroute: gateway.networking.k8s.io/v1alpha2 TLSRoutes.
func TLSRouteKind() source.Kind { return kind(tlsRoute) }

// TCPRouteKind is --source=gateway-tcproute: gateway.networking.k8s.io/v1alpha2 TCPRoutes (no
// hostnames of their own: the listeners' and the annotation's).
func TCPRouteKind() source.Kind { return kind(tcpRoute) }

// UDPRouteKind is --source=gateway-udproute: gateway.networking.k8s.io/v1alpha2 UDPRoutes.
func UDPRouteKind() source.Kind { return kind(udpRoute) }

var (
	httpRoute = adapt(gvk("v1", "HTTPRoute"), "httproutes", gwv1.HTTPProtocolType,
		func(f *gwFactory) cache.SharedIndexInformer {
			return f.inf(false, "httproutes", &gwv1.HTTPRoute{})
		},
		func(rt *gwv1.HTTPRoute) parts {
			return parts{&rt.ObjectMeta, rt.Spec.Hostnames, rt.Spec.ParentRefs, rt.Status.Parents}
		})
	grpcRoute = adapt(gvk("v1", "GRPCRoute"), "grpcroutes", gwv1.HTTPSProtocolType,
		func(f *gwFactory) cache.SharedIndexInformer {
			return f.inf(false, "grpcroutes", &gwv1.GRPCRoute{})
		},
		func(rt *gwv1.GRPCRoute) parts {
			return parts{&rt.ObjectMeta, rt.Spec.Hostnames, rt.Spec.ParentRefs, rt.Status.Parents}
		})
	tlsRoute = adapt(gvk("v1alpha2", "TLSRoute"), "tlsroutes", gwv1.TLSProtocolType,
		func(f *gwFactory) cache.SharedIndexInformer {
			return f.inf(true, "tlsroutes", &v1alpha2.TLSRoute{})
		},
		func(rt *v1alpha2.TLSRoute) parts {
			return parts{&rt.ObjectMeta, rt.Spec.Hostnames, rt.Spec.ParentRefs, rt.Status.Parents}
		})
	tcpRoute = adapt(gvk("v1alpha2", "TCPRoute"), "tcproutes", gwv1.TCPProtocolType,
		func(f *gwFactory) cache.SharedIndexInformer {
			return f.inf(true, "tcproutes", &v1alpha2.TCPRoute{})
		},
		func(rt *v1alpha2.TCPRoute) parts {
			return parts{&rt.ObjectMeta, nil, rt.Spec.ParentRefs, rt.Status.Parents}
		})
	udpRoute = adapt(gvk("v1alpha2", "UDPRoute"), "udproutes", gwv1.UDPProtocolType,
		func(f *gwFactory) cache.SharedIndexInformer {
			return f.inf(true, "udproutes", &v1alpha2.UDPRoute{})
		},
		func(rt *v1alpha2.UDPRoute) parts {
			return parts{&rt.ObjectMeta, nil, rt.Spec.ParentRefs, rt.Status.Parents}
		})
)

// parts are the fields of a typed route the engine reads.
type parts struct {
	meta       *metav1.ObjectMeta
	hostnames  []gwv1.Hostname
	parentRefs []gwv1.ParentReference
	parents    []gwv1.RouteParentStatus
}

// adapt makes the adapter of route type T.
func adapt[T any, P interface {
	*T
	runtime.Object
}](id schema.GroupVersionKind, resource string, protocol gwv1.ProtocolType,
	informer func(*gwFactory) cache.SharedIndexInformer, get func(P) parts) adapter {
	return adapter{
		kind: id.Kind, lower: strings.ToLower(id.Kind), version: id.Version, resource: resource, protocol: protocol, informer: informer,
		view: func(obj any) (route, bool) {
			rt, ok := obj.(P)
			if !ok {
				return route{}, false
			}
			p := get(rt)
			return route{raw: rt, meta: p.meta, hostnames: p.hostnames, parentRefs: p.parentRefs, parents: p.parents}, true
		},
		typed: func(obj any) runtime.Object {
			c := P(new(T))
			*c = *obj.(P) // a shallow copy with the TypeMeta set: the cache's object is shared
			c.GetObjectKind().SetGroupVersionKind(id)
			return c
		},
		decode: func(content map[string]any) (runtime.Object, error) {
			c := P(new(T))
			err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, c)
			c.GetObjectKind().SetGroupVersionKind(id)
			return c, err
		},
	}
}

func gvk(version, kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: group, Version: version, Kind: kind}
}
