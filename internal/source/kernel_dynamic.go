package source

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// Custom resources read through the dynamic client (traefik, contour, openshift): no client module of
// the project that defines them, only a small typed view of the fields a source reads.

// WatchDynamic starts one informer per resource in namespace ("" for all), trimmed like every other
// cache, hooks h to them and waits for the caches. It returns the indexers in the order of gvrs.
func WatchDynamic(ctx context.Context, client dynamic.Interface, namespace string, h *Handlers, gvrs ...schema.GroupVersionResource) ([]cache.Indexer, error) {
	if client == nil {
		return nil, fmt.Errorf("no Kubernetes API client")
	}
	f := kube.NewDynamicFactory(client, namespace)
	watched := make(map[string]cache.SharedIndexInformer, len(gvrs))
	out := make([]cache.Indexer, len(gvrs))
	for i, gvr := range gvrs {
		inf := f.ForResource(gvr)
		if err := inf.SetTransform(TrimObject); err != nil {
			return nil, err
		}
		watched[Resource{Group: gvr.Group, Resource: gvr.Resource}.String()] = inf
		out[i] = inf.GetIndexer()
	}
	if err := StartAndSync(ctx, watched, h, f.Start); err != nil {
		return nil, err
	}
	return out, nil
}

// SortedObjects returns the custom resources of an indexer in namespace/name order.
func SortedObjects(idx cache.Indexer) []*unstructured.Unstructured {
	objs := idx.List()
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			out = append(out, u)
		}
	}
	sort.Slice(out, func(i, j int) bool { return objectLess(out[i], out[j]) })
	return out
}

// DecodeView reads a custom resource into view, a struct with the fields the source needs (metadata,
// spec, status with their JSON names). A field of the wrong type is a Problem on the object, which then
// has no records; false is returned.
func (o *Object) DecodeView(u *unstructured.Unstructured, view any) bool {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, view); err != nil {
		o.Problem("spec", "", "cannot read the object: "+err.Error())
		return false
	}
	return true
}

// LookupDynamic finds namespace/name in the first indexer that holds it and returns a copy with its
// apiVersion and kind set (objects from a watch may lack them), for Events.
func LookupDynamic(namespace, name string, gvks []schema.GroupVersionKind, idxs []cache.Indexer) (runtime.Object, bool) {
	for i, idx := range idxs {
		if idx == nil {
			continue
		}
		obj, ok, err := idx.GetByKey(namespace + "/" + name)
		if err != nil || !ok {
			continue
		}
		if u, isU := obj.(*unstructured.Unstructured); isU {
			c := u.DeepCopy()
			c.SetGroupVersionKind(gvks[i])
			return c, true
		}
	}
	return nil, false
}

// KindMatches reports whether an Events lookup kind (the API kind of a Problem, or the kind of a
// resource label) names one of kinds, ignoring case.
func KindMatches(kind string, kinds ...string) bool {
	for _, k := range kinds {
		if strings.EqualFold(kind, k) {
			return true
		}
	}
	return false
}
