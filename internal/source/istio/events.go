package istio

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

// Which objects an event of a Service or a Gateway concerns. A Gateway's targets are the addresses
// of the Services its spec.selector matches (every Service when it has none); a VirtualService's are
// those of the Gateways its spec.gateways name. So a Service's event names the Gateways whose selector
// matches it (for the VirtualService source, the VirtualServices bound to those), and a Gateway's
// names the VirtualServices bound to it, instead of planning everything. Both scan the Gateways or
// VirtualServices of the cache: a selector match cannot be indexed, and either scan is far cheaper
// than a plan over every name.

// serviceDependents is the dependents function of the Services' informer.
func (s *Source) serviceDependents(obj any) []string {
	svc, ok := obj.(*corev1.Service)
	if !ok || !s.indexed.Load() {
		return []string{""} // the Services sync before the Gateways are watched: everything
	}
	var keys []string
	for _, o := range s.gateways.List() {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return []string{""}
		}
		sel, _, err := unstructured.NestedStringMap(u.Object, "spec", "selector")
		if err != nil {
			return []string{""} // cannot tell which Services it reads
		}
		if labels.SelectorFromSet(sel).Matches(labels.Set(svc.Spec.Selector)) {
			keys = append(keys, u.GetNamespace()+"/"+u.GetName())
		}
	}
	if !s.vs {
		out := make([]string, len(keys))
		for i, k := range keys {
			out[i] = "gateway/" + k
		}
		return out
	}
	return s.virtualServicesBoundTo(keys)
}

// gatewayDependents is the dependents function of the Gateways' informer for the VirtualService
// source: the VirtualServices bound to the Gateway.
func (s *Source) gatewayDependents(obj any) []string {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !s.indexed.Load() {
		return []string{""}
	}
	return s.virtualServicesBoundTo([]string{u.GetNamespace() + "/" + u.GetName()})
}

// virtualServicesBoundTo names the VirtualServices whose spec.gateways resolve (as boundGateways
// resolves them) to one of the Gateways keys ("namespace/name").
func (s *Source) virtualServicesBoundTo(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	var out []string
	for _, o := range s.vservices.List() {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return []string{""}
		}
		refs, _, err := unstructured.NestedStringSlice(u.Object, "spec", "gateways")
		if err != nil {
			return []string{""}
		}
		for _, ref := range refs {
			ns, name := u.GetNamespace(), ref
			if parts := strings.Split(ref, "/"); len(parts) == 2 {
				if parts[0] != "" {
					ns = parts[0]
				}
				name = parts[1]
			}
			if slices.Contains(keys, ns+"/"+name) {
				out = append(out, "virtualservice/"+u.GetNamespace()+"/"+u.GetName())
				break
			}
		}
	}
	return out
}
