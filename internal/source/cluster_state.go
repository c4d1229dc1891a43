package source

import (
	"fmt"
	"sort"

	discoveryv1 "k8s.io/api/discovery/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// clusterState is what service generation reads besides the services themselves. Informers and
// manifests fill it the same way. A nil member means that kind is not watched (--service-type-filter
// left no service type that needs it) and reads as empty.
type clusterState struct {
	nodes  corelisters.NodeLister
	pods   corelisters.PodLister
	slices cache.Indexer // EndpointSlices, with endpointSliceServiceIndex
}

// endpointSliceServiceIndex indexes EndpointSlices by "<namespace>/<service name>", so that a headless
// service finds its slices without scanning the namespace.
const endpointSliceServiceIndex = "service"

func endpointSliceIndexers() cache.Indexers {
	return cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		endpointSliceServiceIndex: func(obj any) ([]string, error) {
			s, ok := obj.(*discoveryv1.EndpointSlice)
			if !ok {
				return nil, fmt.Errorf("not an EndpointSlice: %T", obj)
			}
			name := s.Labels[discoveryv1.LabelServiceName]
			if name == "" {
				return nil, nil
			}
			return []string{s.Namespace + "/" + name}, nil
		},
	}
}

// endpointSlicesOf returns the slices of a service, sorted by name for stable output.
func (s clusterState) endpointSlicesOf(namespace, service string) []*discoveryv1.EndpointSlice {
	if s.slices == nil {
		return nil
	}
	objs, err := s.slices.ByIndex(endpointSliceServiceIndex, namespace+"/"+service)
	if err != nil {
		return nil
	}
	out := make([]*discoveryv1.EndpointSlice, 0, len(objs))
	for _, o := range objs {
		if es, ok := o.(*discoveryv1.EndpointSlice); ok {
			out = append(out, es)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
