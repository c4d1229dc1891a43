package gateway

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// Which routes an event of a Gateway, a ListenerSet or a Namespace concerns. A route's endpoints read
// the Gateways and ListenerSets its spec.parentRefs name (a ListenerSet's through its parent
// Gateway) and, for allowedRoutes namespace selectors, its own namespace and those of the
// ListenerSets it attaches to. The informers index routes by parent and ListenerSets by Gateway, so
// such an event names those routes instead of planning everything.

const (
	// routesByParent indexes routes by "Kind/namespace/name" of every Gateway API parentRef.
	routesByParent = "parent"
	// listenerSetsByGateway indexes ListenerSets by "namespace/name" of their parent Gateway.
	listenerSetsByGateway = "gateway"
)

// routeParents is the routesByParent index function.
func (s *Source) routeParents(obj any) ([]string, error) {
	rt, ok := s.a.view(obj)
	if !ok {
		return nil, nil
	}
	keys := make([]string, 0, len(rt.parentRefs))
	for _, ref := range rt.parentRefs {
		if str((*string)(ref.Group), group) != group {
			continue
		}
		keys = append(keys, str((*string)(ref.Kind), gatewayKind)+"/"+str((*string)(ref.Namespace), rt.meta.Namespace)+"/"+string(ref.Name))
	}
	return keys, nil
}

// listenerSetParent is the listenerSetsByGateway index function.
func listenerSetParent(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	name, _, _ := unstructured.NestedString(u.Object, "spec", "parentRef", "name")
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "parentRef", "namespace")
	if ns == "" {
		ns = u.GetNamespace()
	}
	return []string{ns + "/" + name}, nil
}

// routesAttachedTo returns the resource labels of the routes whose parentRefs name parent
// ("Kind/namespace/name"), appended to out.
func (s *Source) routesAttachedTo(out []string, parent string) []string {
	objs, err := s.routes.ByIndex(routesByParent, parent)
	if err != nil {
		return append(out, "") // cannot tell: everything
	}
	return s.appendLabels(out, objs)
}

func (s *Source) appendLabels(out []string, objs []any) []string {
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil {
			out = append(out, s.a.label()+"/"+m.GetNamespace()+"/"+m.GetName())
		}
	}
	return out
}

// listenerSetRoutes returns the routes attached to the ListenerSets objs, appended to out.
func (s *Source) listenerSetRoutes(out []string, objs []any) []string {
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil {
			out = s.routesAttachedTo(out, listenerSetKind+"/"+m.GetNamespace()+"/"+m.GetName())
		}
	}
	return out
}

// gatewayDependents: the routes attached to the Gateway and to its ListenerSets.
func (s *Source) gatewayDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	key := m.GetNamespace() + "/" + m.GetName()
	out := s.routesAttachedTo(nil, gatewayKind+"/"+key)
	if s.listenerSets != nil {
		lss, err := s.listenerSets.ByIndex(listenerSetsByGateway, key)
		if err != nil {
			return []string{""}
		}
		out = s.listenerSetRoutes(out, lss)
	}
	return out
}

// listenerSetDependents: the routes attached to the ListenerSet.
func (s *Source) listenerSetDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	return s.routesAttachedTo(nil, listenerSetKind+"/"+m.GetNamespace()+"/"+m.GetName())
}

// namespaceDependents: the routes in the namespace, and those attached to its ListenerSets (a
// listener's allowedRoutes selector is matched against those namespaces' labels; a Gateway's
// allowedListeners selector against its ListenerSets' namespace).
func (s *Source) namespaceDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	routes, err := s.routes.ByIndex(cache.NamespaceIndex, m.GetName())
	if err != nil {
		return []string{""}
	}
	out := s.appendLabels(nil, routes)
	if s.listenerSets != nil {
		lss, err := s.listenerSets.ByIndex(cache.NamespaceIndex, m.GetName())
		if err != nil {
			return []string{""}
		}
		out = s.listenerSetRoutes(out, lss)
	}
	return out
}
