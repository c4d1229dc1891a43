package source

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// StaticKind is how a kind reads objects from manifest files (--source=manifest, zonekeeper plan)
// instead of the cluster: the object kinds it takes and a constructor over them. Kinds in their own
// packages (Gateway API, Istio, CRD sources) declare one so that manifests of their objects plan
// exactly as the cluster would publish them.
type StaticKind struct {
	// Objects are the kinds of object it reads (routes, their Gateways, Namespaces, ...).
	Objects []schema.GroupKind
	// New builds the source over the manifest's objects of those kinds, as written (status included).
	New func(cfg Config, objs []*unstructured.Unstructured) (Source, error)
}

// manifestOther is a manifest object the core kinds do not read, kept for the static kinds.
type manifestOther struct {
	obj   *unstructured.Unstructured
	where string
}

// keepOther keeps obj (decoded or not) for the static kinds.
func (m *manifestObjects) keepOther(js []byte, typed runtime.Object, where string) {
	u := &unstructured.Unstructured{}
	if typed != nil {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
		if err != nil {
			ref, typ := peekObject(js)
			m.problems.add(ref, "(object)", typ, err.Error()+" ("+where+")")
			return
		}
		u.Object = content
		gvk := typed.GetObjectKind().GroupVersionKind()
		u.SetAPIVersion(gvk.GroupVersion().String())
		u.SetKind(gvk.Kind)
	} else if err := u.UnmarshalJSON(js); err != nil {
		ref, typ := peekObject(js)
		m.problems.add(ref, "(object)", typ, err.Error()+" ("+where+")")
		return
	}
	m.others = append(m.others, manifestOther{obj: u, where: where})
}

// staticSources builds every static kind over the objects it reads; objects no kind reads are
// problems naming the kinds that are read.
func (m *manifestObjects) staticSources(cfg Config, statics []Kind) ([]Source, error) {
	byKind := make([][]*unstructured.Unstructured, len(statics))
	for _, o := range m.others {
		gk := o.obj.GroupVersionKind().GroupKind()
		read := false
		for i, k := range statics {
			if slices.Contains(k.Static.Objects, gk) {
				byKind[i] = append(byKind[i], o.obj)
				read = true
			}
		}
		if !read {
			ref := endpoint.ObjectRef{Kind: o.obj.GetKind(), Namespace: o.obj.GetNamespace(), Name: o.obj.GetName()}
			m.problems.add(ref, "kind", o.obj.GetAPIVersion()+"/"+o.obj.GetKind(),
				"not a kind zonekeeper reads from manifests: "+manifestKindNames(statics)+" ("+o.where+")")
		}
	}
	var out []Source
	for i, k := range statics {
		if len(byKind[i]) == 0 {
			continue
		}
		if slices.Contains(k.Static.Objects, serviceGroupKind) {
			svcs, err := m.servicesUnstructured()
			if err != nil {
				return nil, err
			}
			byKind[i] = append(byKind[i], svcs...)
		}
		s, err := k.Static.New(cfg, byKind[i])
		if err != nil {
			return nil, fmt.Errorf("manifest: %s: %w", k.Name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// manifestKindNames lists the object kinds a manifest may hold.
func manifestKindNames(statics []Kind) string {
	names := "Service, Ingress (networking.k8s.io/v1), Node, Pod, EndpointSlice"
	seen := map[schema.GroupKind]bool{}
	for _, k := range statics {
		for _, gk := range k.Static.Objects {
			if !seen[gk] && gk.Group != "" {
				seen[gk] = true
				names += ", " + gk.Kind + " (" + gk.Group + ")"
			}
		}
	}
	return names
}

// serviceGroupKind in a StaticKind's Objects gives it the manifest's Services too (which the service
// kind reads as well): Istio Gateways take their targets from the Services they select.
var serviceGroupKind = schema.GroupKind{Kind: "Service"}

// servicesUnstructured returns the manifest's Services as unstructured objects.
func (m *manifestObjects) servicesUnstructured() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, obj := range m.services.List() {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetAPIVersion("v1")
		u.SetKind("Service")
		out = append(out, u)
	}
	return out, nil
}
