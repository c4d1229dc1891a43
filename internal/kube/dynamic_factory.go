package kube

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// DynamicFactory shares one informer of unstructured objects per resource (DynamicInformer), as
// dynamicinformer's factory does, in one namespace ("" for all).
type DynamicFactory struct {
	client    dynamic.Interface
	namespace string
	sharedInformers[schema.GroupVersionResource]
}

// NewDynamicFactory returns a factory of dynamic informers over client in namespace.
func NewDynamicFactory(client dynamic.Interface, namespace string) *DynamicFactory {
	return &DynamicFactory{client: client, namespace: namespace, sharedInformers: newSharedInformers[schema.GroupVersionResource]()}
}

// ForResource returns the informer of gvr, made the first time.
func (f *DynamicFactory) ForResource(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	return f.get(gvr, func() cache.SharedIndexInformer { return DynamicInformer(f.client, gvr, f.namespace) })
}

// Lister reads the store of gvr's informer.
func (f *DynamicFactory) Lister(gvr schema.GroupVersionResource) cache.GenericLister {
	return cache.NewGenericLister(f.ForResource(gvr).GetIndexer(), gvr.GroupResource())
}
