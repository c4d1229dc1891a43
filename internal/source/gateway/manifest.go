package gateway

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// staticKind lets --source=manifest and zonekeeper plan read a route kind from files: its routes,
// their Gateways and Namespaces (for allowedRoutes selectors), through the same engine as the cluster.
func staticKind(a adapter) *source.StaticKind {
	return &source.StaticKind{
		Objects: []schema.GroupKind{{Group: group, Kind: gatewayKind}, {Group: group, Kind: a.kind}, {Kind: "Namespace"}},
		New: func(cfg source.Config, objs []*unstructured.Unstructured) (source.Source, error) {
			typed := make([]runtime.Object, 0, len(objs))
			for _, u := range objs {
				obj, err := decodeManifestObject(a, u)
				if err != nil {
					return nil, fmt.Errorf("%s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
				}
				typed = append(typed, obj)
			}
			return NewStatic("gateway-"+a.label(), cfg, typed)
		},
	}
}

// decodeManifestObject makes the typed object NewStatic reads; namespaced objects without a namespace
// land in "default", as kubectl apply would put them.
func decodeManifestObject(a adapter, u *unstructured.Unstructured) (runtime.Object, error) {
	if u.GetKind() == "Namespace" {
		ns := &corev1.Namespace{}
		return ns, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ns)
	}
	if u.GetNamespace() == "" {
		u.SetNamespace("default")
	}
	if u.GetKind() == gatewayKind {
		gw := &gwv1.Gateway{}
		err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, gw)
		gw.SetGroupVersionKind(gwv1.SchemeGroupVersion.WithKind(gatewayKind))
		return gw, err
	}
	return a.decode(u.Object)
}
