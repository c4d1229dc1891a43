package source

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// ingressInformer is f's Ingress informer without the namespace index the factory's others have: the
// Ingress source lists every Ingress and gets one by its key, never lists one namespace, so the index
// was memory held for nothing (a set entry per Ingress, about 40 bytes; issue 15). The store, its key
// and the factory's transform are the factory's own. TestIngressSourceReadsNoIndex.
func ingressInformer(f *kube.Factory) cache.SharedIndexInformer {
	return f.ResourceWith(kube.Networking, "ingresses", &networkingv1.Ingress{}, cache.Indexers{})
}

// ingressTransform is the Ingress informer's transform: the factory's (trimObject, shared strings),
// then the compact cachedIngress, unless --fqdn-template is configured: a template may read any field
// of the object, as external-dns's does, so the informer keeps whole Ingresses then, with their paths,
// backends and load balancer ports (only managed fields and kubectl's last-applied copy dropped, as
// external-dns drops them). An object already compact is kept (a transform may see an object twice).
func ingressTransform(c *compiled) cache.TransformFunc {
	shared := informerTransform()
	if c.fqdnTemplate != nil {
		return templatedIngressTransform()
	}
	return func(obj any) (any, error) {
		if _, ok := obj.(*cachedIngress); ok {
			return obj, nil
		}
		obj, err := shared(obj)
		if ing, ok := obj.(*networkingv1.Ingress); ok && err == nil {
			return compactIngress(ing), nil
		}
		return obj, err
	}
}

// IngressInformerStore is the store of the Ingress source's informer as NewIngress makes it for cfg
// (its key function and its indexes, none), still empty, and the transform that informer puts every
// Ingress through before storing it (ingressTransform, with its own table of shared strings). It is
// for measuring what a process holds per Ingress: the TXT registry's converged-heap benchmark fills
// it and reads it with NewIngressFromStore.
func IngressInformerStore(cfg Config) (cache.Indexer, cache.TransformFunc, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, nil, err
	}
	transform := ingressTransform(c)
	return ingressInformer(newInformerFactoryWith(nil, "", transform)).GetIndexer(), transform, nil
}

// templatedIngressTransform is the Ingress informer's transform with --fqdn-template: managed fields
// and kubectl's copy dropped, repeated strings shared, nothing else (TestIngressTemplateSeesWholeIngress).
func templatedIngressTransform() cache.TransformFunc {
	t := newStringTable()
	return func(obj any) (any, error) { return t.trimAndShare(trimMeta, obj) }
}
