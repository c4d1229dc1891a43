package istio

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// staticKind lets --source=manifest and zonekeeper plan read Gateways (and VirtualServices, when vs)
// from files, with the manifest's Services, through the same generation as the cluster.
func staticKind(vs bool) *source.StaticKind {
	objects := []schema.GroupKind{{Group: group, Kind: gatewayKind}, {Kind: "Service"}}
	if vs {
		objects = append(objects, schema.GroupKind{Group: group, Kind: vsKind})
	}
	return &source.StaticKind{
		Objects: objects,
		New: func(cfg source.Config, objs []*unstructured.Unstructured) (source.Source, error) {
			return newStatic(cfg, objs, vs)
		},
	}
}

// newStatic is a Source over objects read from manifests: namespaced objects without a namespace are
// in "default", as kubectl would put them; objects outside --namespace are left out. It serves no
// Events.
func newStatic(cfg source.Config, objs []*unstructured.Unstructured, vs bool) (*Source, error) {
	k, err := source.NewKernel(cfg)
	if err != nil {
		return nil, err
	}
	newIndexer := func() cache.Indexer { return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}) }
	s := &Source{k: k, vs: vs, static: true, services: newIndexer(), gateways: newIndexer()}
	if vs {
		s.vservices = newIndexer()
	}
	for _, u := range objs {
		if u.GetNamespace() == "" {
			u = u.DeepCopy()
			u.SetNamespace("default")
		}
		if cfg.Namespace != "" && u.GetNamespace() != cfg.Namespace {
			continue
		}
		var add error
		switch u.GroupVersionKind().GroupKind() {
		case schema.GroupKind{Kind: "Service"}:
			svc := &corev1.Service{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, svc); err != nil {
				return nil, fmt.Errorf("Service %s/%s: %w", u.GetNamespace(), u.GetName(), err)
			}
			add = s.services.Add(svc)
		case schema.GroupKind{Group: group, Kind: gatewayKind}:
			add = s.gateways.Add(u)
		case schema.GroupKind{Group: group, Kind: vsKind}:
			if vs {
				add = s.vservices.Add(u)
			}
		}
		if add != nil {
			return nil, add
		}
	}
	return s, nil
}
