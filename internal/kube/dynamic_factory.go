package kube

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// DynamicFactory shares one informer of unstructured objects per resource (DynamicInformer), as
// dynamicinformer's factory does, in one namespace ("" for all).
type DynamicFactory struct {
	client    dynamic.Interface
	namespace string

	mu        sync.Mutex
	informers map[schema.GroupVersionResource]cache.SharedIndexInformer
	started   map[schema.GroupVersionResource]bool
}

// NewDynamicFactory returns a factory of dynamic informers over client in namespace.
func NewDynamicFactory(client dynamic.Interface, namespace string) *DynamicFactory {
	return &DynamicFactory{client: client, namespace: namespace,
		informers: map[schema.GroupVersionResource]cache.SharedIndexInformer{}, started: map[schema.GroupVersionResource]bool{}}
}

// ForResource returns the informer of gvr, made the first time.
func (f *DynamicFactory) ForResource(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	inf, ok := f.informers[gvr]
	if !ok {
		inf = DynamicInformer(f.client, gvr, f.namespace)
		f.informers[gvr] = inf
	}
	return inf
}

// Lister reads the store of gvr's informer.
func (f *DynamicFactory) Lister(gvr schema.GroupVersionResource) cache.GenericLister {
	return cache.NewGenericLister(f.ForResource(gvr).GetIndexer(), gvr.GroupResource())
}

// Start runs every informer not yet running until stop is closed.
func (f *DynamicFactory) Start(stop <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for gvr, inf := range f.informers {
		if !f.started[gvr] {
			f.started[gvr] = true
			go inf.Run(stop)
		}
	}
}
