package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Factory shares one informer per resource among the parts of one source, as client-go's shared
// informer factory does: every informer it makes watches its namespace ("" for all) and stores its
// objects through its transform. Start runs the informers not yet running.
type Factory struct {
	client    *Client // nil: informers for their stores only, never started
	namespace string
	transform cache.TransformFunc
	sharedInformers[string]
}

// NewFactory returns a factory of informers over client in namespace with transform (nil: none).
func NewFactory(client *Client, namespace string, transform cache.TransformFunc) *Factory {
	return &Factory{client: client, namespace: namespace, transform: transform, sharedInformers: newSharedInformers[string]()}
}

// InformerFor returns the informer under key (the Go type of its objects), made by newInformer in the
// factory's namespace the first time, with the factory's transform.
func (f *Factory) InformerFor(key string, newInformer func(namespace string) cache.SharedIndexInformer) cache.SharedIndexInformer {
	return f.get(key, func() cache.SharedIndexInformer {
		inf := newInformer(f.namespace)
		if f.transform != nil {
			_ = inf.SetTransform(f.transform) // a new informer has not started
		}
		return inf
	})
}

// group is the REST client of a group version, nil without a client.
func (f *Factory) group(pick func(*Client) rest.Interface) rest.Interface {
	if f.client == nil {
		return nil
	}
	return pick(f.client)
}

// Resource returns the informer of a resource of one of the client's group versions, with the
// namespace index (as client-go's generated informers have).
func (f *Factory) Resource(pick func(*Client) rest.Interface, resource string, obj runtime.Object) cache.SharedIndexInformer {
	return f.ResourceWith(pick, resource, obj, NamespaceIndexers())
}

// ResourceWith is Resource with the indexers given. The informer is shared by its object's Go type,
// as in client-go's factory: the first caller's indexers are the informer's.
func (f *Factory) ResourceWith(pick func(*Client) rest.Interface, resource string, obj runtime.Object, indexers cache.Indexers) cache.SharedIndexInformer {
	client := f.group(pick)
	return f.InformerFor(fmt.Sprintf("%T", obj), func(namespace string) cache.SharedIndexInformer {
		return Informer(client, resource, namespace, obj, indexers, nil)
	})
}

// ClusterResource is Resource for a cluster-scoped resource (nodes, namespaces): its informer lists
// at the cluster scope whatever the factory's namespace, as client-go's generated informers of
// cluster-scoped kinds do. Listed in a namespace, the API server answers 404 (a --namespace source's
// Node informer never synced).
func (f *Factory) ClusterResource(pick func(*Client) rest.Interface, resource string, obj runtime.Object) cache.SharedIndexInformer {
	client := f.group(pick)
	return f.InformerFor(fmt.Sprintf("%T", obj), func(string) cache.SharedIndexInformer {
		return Informer(client, resource, "", obj, NamespaceIndexers(), nil)
	})
}

// Group pickers for Resource.
func Core(c *Client) rest.Interface           { return c.Core }
func Networking(c *Client) rest.Interface     { return c.Networking }
func DiscoveryGroup(c *Client) rest.Interface { return c.Discovery }

// Services is the Service informer.
func (f *Factory) Services() cache.SharedIndexInformer {
	return f.Resource(Core, "services", &corev1.Service{})
}

// ServiceLister reads the Service informer's store.
func (f *Factory) ServiceLister() corelisters.ServiceLister {
	return corelisters.NewServiceLister(f.Services().GetIndexer())
}

// Nodes is the Node informer.
func (f *Factory) Nodes() cache.SharedIndexInformer {
	return f.ClusterResource(Core, "nodes", &corev1.Node{})
}

// NodeLister reads the Node informer's store.
func (f *Factory) NodeLister() corelisters.NodeLister {
	return corelisters.NewNodeLister(f.Nodes().GetIndexer())
}

// Pods is the Pod informer.
func (f *Factory) Pods() cache.SharedIndexInformer { return f.Resource(Core, "pods", &corev1.Pod{}) }

// PodLister reads the Pod informer's store.
func (f *Factory) PodLister() corelisters.PodLister {
	return corelisters.NewPodLister(f.Pods().GetIndexer())
}

// Namespaces is the Namespace informer.
func (f *Factory) Namespaces() cache.SharedIndexInformer {
	return f.ClusterResource(Core, "namespaces", &corev1.Namespace{})
}

// EndpointSlices is the discovery/v1 EndpointSlice informer.
func (f *Factory) EndpointSlices() cache.SharedIndexInformer {
	return f.Resource(DiscoveryGroup, "endpointslices", &discoveryv1.EndpointSlice{})
}

// Ingresses is the networking/v1 Ingress informer.
func (f *Factory) Ingresses() cache.SharedIndexInformer {
	return f.Resource(Networking, "ingresses", &networkingv1.Ingress{})
}
