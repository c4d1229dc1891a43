package ambassador

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// staticKind lets --source=manifest and zonekeeper plan read Hosts from files, with the manifest's
// Services (of any namespace, as the cluster's are read), through the same code as the cluster.
func staticKind() *source.StaticKind {
	return &source.StaticKind{
		Objects: []schema.GroupKind{{Group: HostResource.Group, Kind: hostKind}, {Kind: "Service"}},
		New:     newStatic,
	}
}

func newStatic(cfg source.Config, objs []*unstructured.Unstructured) (source.Source, error) {
	f := &serviceFinder{index: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})}
	var hosts []*unstructured.Unstructured
	for _, u := range objs {
		if u.GroupVersionKind().GroupKind() != (schema.GroupKind{Kind: "Service"}) {
			hosts = append(hosts, u)
			continue
		}
		svc := &corev1.Service{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, svc); err != nil {
			return nil, fmt.Errorf("Service %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		if svc.Namespace == "" {
			svc.Namespace = "default"
		}
		if err := f.index.Add(svc); err != nil {
			return nil, err
		}
	}
	crd, err := source.NewStaticCRDSource(cfg, crdKinds(f), hosts)
	if err != nil {
		return nil, err
	}
	return &Source{CRDSource: crd, services: f}, nil
}
