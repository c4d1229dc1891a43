package source

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// NewService returns a Service source backed by shared informers (resync 0, scoped to cfg.Namespace).
// The informers run until ctx is cancelled; the constructor waits for their caches, and fails if ctx
// ends first. Node, pod and EndpointSlice informers start only when a service type in
// cfg.ServiceTypeFilter needs them.
func NewService(ctx context.Context, client kubernetes.Interface, cfg Config) (*ServiceSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	f := newInformerFactory(client, cfg.Namespace)
	s := &ServiceSource{c: c, live: true}
	svcInf := f.Core().V1().Services()
	s.services = svcInf.Lister()
	watched := map[string]cache.SharedIndexInformer{"services": svcInf.Informer()}

	needNodes, needPods, needSlices := c.serviceInformersNeeded()
	if needNodes {
		inf := f.Core().V1().Nodes()
		s.state.nodes = inf.Lister()
		watched["nodes"] = inf.Informer()
	}
	if needPods {
		inf := f.Core().V1().Pods()
		s.state.pods = inf.Lister()
		watched["pods"] = inf.Informer()
	}
	if needSlices {
		inf := f.Discovery().V1().EndpointSlices().Informer()
		idx := endpointSliceIndexers()
		delete(idx, cache.NamespaceIndex) // the factory's informer already has it
		if err := inf.AddIndexers(idx); err != nil {
			return nil, fmt.Errorf("endpointslice index: %w", err)
		}
		s.state.slices = inf.GetIndexer()
		watched["endpointslices"] = inf
	}
	if err := startAndSync(ctx, f, watched, &s.handlers); err != nil {
		return nil, err
	}
	return s, nil
}

// NewIngress returns an Ingress source backed by a shared informer, like NewService.
func NewIngress(ctx context.Context, client kubernetes.Interface, cfg Config) (*IngressSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	f := newInformerFactory(client, cfg.Namespace)
	inf := f.Networking().V1().Ingresses()
	s := &IngressSource{c: c, ingresses: inf.Lister(), live: true}
	if err := startAndSync(ctx, f, map[string]cache.SharedIndexInformer{"ingresses": inf.Informer()}, &s.handlers); err != nil {
		return nil, err
	}
	return s, nil
}

func newInformerFactory(client kubernetes.Interface, namespace string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithNamespace(namespace), informers.WithTransform(trimObject))
}

// startAndSync hooks the event handlers, starts the informers and waits for their caches. On failure
// it names the kinds that did not sync: usually missing RBAC.
func startAndSync(ctx context.Context, f informers.SharedInformerFactory, watched map[string]cache.SharedIndexInformer, h *eventHandlers) error {
	return startAndSyncAll(ctx, watched, h, f.Start)
}

// startAndSyncAll is startAndSync for informers of any factories.
func startAndSyncAll(ctx context.Context, watched map[string]cache.SharedIndexInformer, h *eventHandlers, starters ...Starter) error {
	for name, inf := range watched {
		if err := h.watch(inf); err != nil {
			return fmt.Errorf("%s informer: %w", name, err)
		}
	}
	synced := make([]cache.InformerSynced, 0, len(watched))
	for _, inf := range watched {
		synced = append(synced, inf.HasSynced)
	}
	for _, start := range starters {
		start(ctx.Done())
	}
	cache.WaitForCacheSync(ctx.Done(), synced...)
	var missing []string
	for name, inf := range watched {
		if !inf.HasSynced() {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("caches of %s did not sync before the context ended (check RBAC list/watch): %w",
			strings.Join(missing, ", "), context.Cause(ctx))
	}
	return nil
}
