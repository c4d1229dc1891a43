package source

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// cachedByLabel reads, with get, the cached object a resource label names ("kind/namespace/name", or
// "kind/name" for a cluster-scoped object): found is false when the cache no longer holds it, and a
// label of another kind is an error. The per-object answers of ObjectSource start here.
func cachedByLabel[T any](resource, kind string, get func(namespace, name string) (T, error)) (obj T, found bool, err error) {
	k, namespace, name := endpoint.SplitResource(resource)
	if k != kind {
		return obj, false, fmt.Errorf("%s is not a %s", resource, kind)
	}
	obj, err = get(namespace, name)
	if apierrors.IsNotFound(err) {
		return obj, false, nil
	}
	return obj, err == nil, err
}

// CachedObject is the object of a resource label in an informer's indexer.
func CachedObject(idx cache.Indexer, resource, kind string) (obj any, found bool, err error) {
	return cachedByLabel(resource, kind, func(namespace, name string) (any, error) {
		key := name
		if namespace != "" {
			key = namespace + "/" + name
		}
		obj, ok, err := idx.GetByKey(key)
		if err == nil && !ok {
			err = apierrors.NewNotFound(schema.GroupResource{}, key)
		}
		return obj, err
	})
}

// CachedUnstructured is CachedObject for the indexer of a custom resource read through the dynamic
// client.
func CachedUnstructured(idx cache.Indexer, resource, kind string) (*unstructured.Unstructured, bool, error) {
	obj, found, err := CachedObject(idx, resource, kind)
	if err != nil || !found {
		return nil, false, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, false, fmt.Errorf("%s is a %T in the cache", resource, obj)
	}
	return u, true, nil
}
