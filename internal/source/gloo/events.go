package gloo

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// Which Proxies an event of a VirtualService, a Gateway, an Ingress or a Service concerns. A Proxy's
// endpoints read the VirtualServices its virtual hosts' metadata sources name, the Gateways its
// listeners' metadataStatic sources name, the Ingress each such Gateway's ingress annotation names,
// and the Service named like the Proxy. The informers index Proxies by the VirtualServices and
// Gateways they name and Gateways by the Ingress they name, so such an event names those Proxies (in a
// --gloo-namespace namespace: no other is published) instead of planning everything.

const (
	// proxiesByRef indexes Proxies by refKey of every VirtualService and Gateway they name.
	proxiesByRef = "ref"
	// gatewaysByIngress indexes Gateways by "namespace/name" of the Ingress their annotation names.
	gatewaysByIngress = "ingress"
)

// refKey is the proxiesByRef key of the object of kind (sourceVirtualService or sourceGateway) a
// metadata source names, as hostMeta and targets look it up.
func refKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// proxyRefs is the proxiesByRef index function: the Gateways of every listener's metadataStatic and
// the VirtualServices of every virtual host's metadata and metadataStatic (an aggregate listener's,
// named by a filter chain or not), as proxyView reads them. It walks the object in place: decoding a
// Proxy of 1,000 virtual hosts into the view took 1.7 ms (BenchmarkProxyRefs), twice per event (the
// old object and the new). A field of the wrong type is skipped; such a Proxy has no records anyway.
func proxyRefs(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	var keys []string
	listeners, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "listeners")
	for _, l := range objectsOf(listeners) {
		keys = appendSources(keys, l, "metadataStatic", sourceGateway)
		vhs, _, _ := unstructured.NestedFieldNoCopy(l, "httpListener", "virtualHosts")
		all := objectsOf(vhs)
		aggregated, _, _ := unstructured.NestedFieldNoCopy(l, "aggregateListener", "httpResources", "virtualHosts")
		byRef, _ := aggregated.(map[string]any)
		for _, vh := range byRef {
			if m, ok := vh.(map[string]any); ok {
				all = append(all, m)
			}
		}
		for _, vh := range all {
			keys = appendSources(keys, vh, "metadata", sourceVirtualService)
			keys = appendSources(keys, vh, "metadataStatic", sourceVirtualService)
		}
	}
	return keys, nil
}

// appendSources appends the refKey of every source of kind in obj[field].sources: {kind, namespace,
// name} under metadata, {resourceKind, resourceRef: {namespace, name}} under metadataStatic.
func appendSources(keys []string, obj map[string]any, field, kind string) []string {
	srcs, _, _ := unstructured.NestedFieldNoCopy(obj, field, "sources")
	for _, src := range objectsOf(srcs) {
		ref, kindKey := src, "kind"
		if field == "metadataStatic" {
			ref, _ = src["resourceRef"].(map[string]any)
			kindKey = "resourceKind"
		}
		if k, _ := src[kindKey].(string); k == kind {
			ns, _ := ref["namespace"].(string)
			name, _ := ref["name"].(string)
			keys = append(keys, refKey(kind, ns, name))
		}
	}
	return keys
}

// objectsOf returns the objects of a list read from an unstructured object (none when it is not one).
func objectsOf(list any) []map[string]any {
	items, _ := list.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// gatewayIngress is the gatewaysByIngress index function: the Ingress the Gateway's ingress
// annotation names, resolved as ingress resolves it (none when the annotation is absent or malformed:
// the Gateway then reads no Ingress).
func (s *Source) gatewayIngress(obj any) ([]string, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, nil
	}
	_, ref := s.k.PrefixedAnnotation(u.GetAnnotations(), keyIngress)
	if ref == "" {
		return nil, nil
	}
	ns, name, ok := ingressKey(u.GetNamespace(), ref)
	if !ok {
		return nil, nil
	}
	return []string{ns + "/" + name}, nil
}

// ingressKey resolves a Gateway's ingress annotation: "namespace/name", or "name" in the Gateway's
// namespace.
func ingressKey(gatewayNamespace, ref string) (namespace, name string, ok bool) {
	switch parts := strings.Split(ref, "/"); len(parts) {
	case 1:
		return gatewayNamespace, ref, true
	case 2:
		return parts[0], parts[1], true
	}
	return "", "", false
}

// proxiesNaming returns the resource labels of the published Proxies that name the object of kind
// namespace/name, appended to out ("" when the index cannot tell).
func (s *Source) proxiesNaming(out []string, kind, namespace, name string) []string {
	objs, err := s.st.proxies.ByIndex(proxiesByRef, refKey(kind, namespace, name))
	if err != nil {
		return append(out, "")
	}
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil && s.namespaces[m.GetNamespace()] {
			out = append(out, label+"/"+m.GetNamespace()+"/"+m.GetName())
		}
	}
	return out
}

// virtualServiceDependents: the Proxies whose virtual hosts came from the VirtualService.
func (s *Source) virtualServiceDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	return s.proxiesNaming(nil, sourceVirtualService, m.GetNamespace(), m.GetName())
}

// gatewayDependents: the Proxies whose listeners came from the Gateway.
func (s *Source) gatewayDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	return s.proxiesNaming(nil, sourceGateway, m.GetNamespace(), m.GetName())
}

// ingressDependents: the Proxies whose listeners came from a Gateway naming the Ingress.
func (s *Source) ingressDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	gws, err := s.st.gateways.ByIndex(gatewaysByIngress, m.GetNamespace()+"/"+m.GetName())
	if err != nil {
		return []string{""}
	}
	var out []string
	for _, gw := range gws {
		if gm, err := meta.Accessor(gw); err == nil {
			out = s.proxiesNaming(out, sourceGateway, gm.GetNamespace(), gm.GetName())
		}
	}
	return out
}

// serviceDependents: the published Proxy named like the Service, in its namespace.
func (s *Source) serviceDependents(obj any) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []string{""}
	}
	if !s.namespaces[m.GetNamespace()] {
		return nil
	}
	key := m.GetNamespace() + "/" + m.GetName()
	_, found, err := s.st.proxies.GetByKey(key)
	switch {
	case err != nil:
		return []string{""}
	case !found:
		return nil // no Proxy reads it; one created later reads the cache when its own event comes
	}
	return []string{label + "/" + key}
}

// indexers are the informers' indexes this file reads.
func (s *Source) indexers() (proxies, gateways cache.Indexers) {
	return cache.Indexers{proxiesByRef: proxyRefs}, cache.Indexers{gatewaysByIngress: s.gatewayIngress}
}
