package source

import (
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/informers"
	networkinginformers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// ingressInformer is f's Ingress informer without the namespace index the factory's own has: the
// Ingress source lists every Ingress and gets one by its key, never lists one namespace, so the index
// was memory held for nothing (a set entry per Ingress, about 40 bytes; issue 15). The store, its key
// and the factory's transform are the factory's own. TestIngressSourceReadsNoIndex.
func ingressInformer(f informers.SharedInformerFactory, namespace string) cache.SharedIndexInformer {
	return f.InformerFor(&networkingv1.Ingress{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return networkinginformers.NewFilteredIngressInformer(client, namespace, resync, cache.Indexers{}, nil)
	})
}

// IngressInformerStore is the store of the Ingress source's informer as NewIngress makes it (its key
// function and its indexes, none), still empty, and the transform that informer puts every Ingress
// through before storing it (the factory's, with the factory's table of shared strings). It is for
// measuring what a process holds per Ingress: the TXT registry's converged-heap benchmark fills it
// with transformed Ingresses.
func IngressInformerStore() (cache.Indexer, cache.TransformFunc) {
	transform := informerTransform()
	return ingressInformer(newInformerFactoryWith(nil, "", transform), "").GetIndexer(), transform
}
