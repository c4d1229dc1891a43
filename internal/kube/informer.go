package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Informer is a shared index informer of one resource of client's group version in namespace (""
// for every namespace), with no resync, the indexers given and, if not nil, the transform. obj is an
// empty object of the resource's Go type. A nil client makes an informer that is never to be run (its
// store alone is used, as IngressInformerStore does).
func Informer(client rest.Interface, resource, namespace string, obj runtime.Object, indexers cache.Indexers, transform cache.TransformFunc) cache.SharedIndexInformer {
	lw := cache.NewListWatchFromClient(client, resource, namespace, fields.Everything())
	inf := cache.NewSharedIndexInformer(lw, obj, 0, indexers)
	if transform != nil {
		_ = inf.SetTransform(transform) // fails only on an informer already started
	}
	return inf
}

// NamespaceIndexers is the namespace index client-go's generated informers have.
func NamespaceIndexers() cache.Indexers {
	return cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
}

// DynamicInformer is a shared index informer of unstructured objects of gvr in namespace ("" for
// every namespace) with the namespace index, as dynamicinformer's: no resync, no transform.
func DynamicInformer(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return client.Resource(gvr).Namespace(namespace).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return client.Resource(gvr).Namespace(namespace).Watch(ctx, o)
		},
	}
	return cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, NamespaceIndexers())
}
