package gloo

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// staticKind lets --source=manifest and zonekeeper plan read Proxies from files, with the manifest's
// VirtualServices, Gateways and Services, through the same code as the cluster. Manifests give static
// kinds no Ingresses: a Gateway's ingress annotation is reported there (set the Proxy's target).
func staticKind() *source.StaticKind {
	return &source.StaticKind{
		Objects: []schema.GroupKind{
			{Group: ProxyResource.Group, Kind: proxyKind}, {Group: VirtualServiceResource.Group, Kind: vsKind},
			{Group: GatewayResource.Group, Kind: "Gateway"}, {Kind: "Service"},
		},
		New: newStatic,
	}
}

func newStatic(cfg source.Config, objs []*unstructured.Unstructured) (source.Source, error) {
	k, nss, err := newKernel(cfg)
	if err != nil {
		return nil, err
	}
	idx := func() cache.Indexer { return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}) }
	s := &Source{k: k, namespaces: nss, static: true,
		st: stores{proxies: idx(), vservices: idx(), gateways: idx(), services: idx(), ingresses: idx()}}
	for _, u := range objs {
		if u.GetNamespace() == "" {
			u = u.DeepCopy()
			u.SetNamespace("default")
		}
		var typed any
		var into cache.Indexer
		switch u.GroupVersionKind().GroupKind() {
		case schema.GroupKind{Group: ProxyResource.Group, Kind: proxyKind}:
			typed, into = u, s.st.proxies
		case schema.GroupKind{Group: VirtualServiceResource.Group, Kind: vsKind}:
			typed, into = u, s.st.vservices
		case schema.GroupKind{Group: GatewayResource.Group, Kind: "Gateway"}:
			typed, into = u, s.st.gateways
		case schema.GroupKind{Kind: "Service"}:
			svc := &corev1.Service{}
			typed, into, err = svc, s.st.services, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, svc)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		if err := into.Add(typed); err != nil {
			return nil, err
		}
	}
	return s, nil
}
