package source

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// NewService returns a Service source backed by shared informers (resync 0, scoped to cfg.Namespace).
// The informers run until ctx is cancelled; the constructor waits for their caches, and fails if ctx
// ends first. Node, pod and EndpointSlice informers start only when a service type in
// cfg.ServiceTypeFilter needs them.
func NewService(ctx context.Context, client *kube.Client, cfg Config) (*ServiceSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	// Nodes cut down to what generation reads, as for the node source: a heartbeat then changes
	// nothing in the cache, and its event plans nothing.
	f := nodePodInformerFactory(client, cfg.Namespace)
	s := &ServiceSource{c: c, live: true}
	svcInf := f.Services()
	s.services = f.ServiceLister()
	if err := svcInf.AddIndexers(cache.Indexers{serviceTypeIndex: serviceType}); err != nil {
		return nil, fmt.Errorf("service index: %w", err)
	}
	s.byType = svcInf.GetIndexer()
	watched := map[string]cache.SharedIndexInformer{"services": svcInf}

	needNodes, needPods, needSlices := c.serviceInformersNeeded()
	if needNodes {
		s.state.nodes = f.NodeLister()
		watched["nodes"] = f.Nodes()
	}
	if needPods {
		inf := f.Pods()
		if err := inf.AddIndexers(cache.Indexers{podNodeIndex: podNodeName}); err != nil {
			return nil, fmt.Errorf("pod index: %w", err)
		}
		s.state.pods = f.PodLister()
		s.podsByNode = inf.GetIndexer()
		watched["pods"] = inf
	}
	if needSlices && slices.Contains(cfg.SkipResources, endpointSlicesResource) {
		s.slicesSkipped = true
	} else if needSlices {
		inf := f.EndpointSlices()
		idx := endpointSliceIndexers()
		delete(idx, cache.NamespaceIndex) // the factory's informer already has it
		idx[endpointSlicePodIndex] = endpointSlicePods
		idx[endpointSliceNodeIndex] = endpointSliceNodes
		if err := inf.AddIndexers(idx); err != nil {
			return nil, fmt.Errorf("endpointslice index: %w", err)
		}
		s.state.slices = inf.GetIndexer()
		s.slicesByNode = s.state.slices
		watched["endpointslices"] = inf
	}
	s.watchServiceDependents(watched)
	if err := startAndSync(ctx, f, watched, &s.handlers); err != nil {
		return nil, err
	}
	return s, nil
}

// NewIngress returns an Ingress source backed by a shared informer, like NewService.
func NewIngress(ctx context.Context, client *kube.Client, cfg Config) (*IngressSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	f := newInformerFactoryWith(client, cfg.Namespace, ingressTransform(c))
	inf := ingressInformer(f)
	s := &IngressSource{c: c, ingresses: storeIngresses{inf.GetIndexer()}, live: true}
	s.handlers.nameObjects("ingresses", ingressKind)
	if err := startAndSync(ctx, f, map[string]cache.SharedIndexInformer{"ingresses": inf}, &s.handlers); err != nil {
		return nil, err
	}
	return s, nil
}

func newInformerFactory(client *kube.Client, namespace string) *kube.Factory {
	return newInformerFactoryWith(client, namespace, informerTransform())
}

// newInformerFactoryWith is newInformerFactory with the transform given.
func newInformerFactoryWith(client *kube.Client, namespace string, transform cache.TransformFunc) *kube.Factory {
	return kube.NewFactory(client, namespace, transform)
}

// informerTransform is the transform of a factory's informers: trimObject, then the strings its
// objects repeat shared through one table (stringTable).
func informerTransform() cache.TransformFunc { return newStringTable().transform }

// startAndSync hooks the event handlers, starts the informers and waits for their caches. On failure
// it names the kinds that did not sync: usually missing RBAC.
func startAndSync(ctx context.Context, f *kube.Factory, watched map[string]cache.SharedIndexInformer, h *eventHandlers) error {
	return startAndSyncAll(ctx, watched, h, f.Start)
}

// startAndSyncAll is startAndSync for informers of any factories.
func startAndSyncAll(ctx context.Context, watched map[string]cache.SharedIndexInformer, h *eventHandlers, starters ...Starter) error {
	for name, inf := range watched {
		if err := h.watch(name, inf); err != nil {
			return fmt.Errorf("%s informer: %w", name, err)
		}
	}
	synced := make([]cache.InformerSynced, 0, len(watched))
	refused := &refusals{stop: make(chan struct{})}
	for name, inf := range watched {
		synced = append(synced, inf.HasSynced)
		if err := inf.SetWatchErrorHandlerWithContext(refused.handler(name)); err != nil {
			return fmt.Errorf("%s informer: %w", name, err)
		}
	}
	for _, start := range starters {
		start(ctx.Done())
	}
	// The wait is bounded: a cache that cannot sync (RBAC, a resource that went away) must turn into an
	// error naming it, never into a process that hangs (--once) or never becomes ready.
	waitCtx, cancel := context.WithTimeout(ctx, cacheSyncTimeout)
	defer cancel()
	go func() {
		select {
		case <-refused.stop:
			cancel()
		case <-waitCtx.Done():
		}
	}()
	cache.WaitForCacheSync(waitCtx.Done(), synced...)
	var missing []string
	for name, inf := range watched {
		if !inf.HasSynced() {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	if err := refused.first(); err != nil {
		return fmt.Errorf("cannot read %s: %w", strings.Join(missing, ", "), err)
	}
	cause := context.Cause(ctx)
	if cause == nil {
		cause = fmt.Errorf("no answer within %s", cacheSyncTimeout)
	}
	return fmt.Errorf("caches of %s did not sync (check RBAC list/watch and the API server): %w", strings.Join(missing, ", "), cause)
}

// cacheSyncTimeout bounds the wait for the first list of every informer.
const cacheSyncTimeout = 2 * time.Minute

// refusals records the first list or watch an API server refused for good (forbidden, unauthorized,
// not found), so that the wait for the caches ends at once with the server's own message, which names
// the verb, the resource and the identity.
type refusals struct {
	mu   sync.Mutex
	err  error
	stop chan struct{}
}

func (r *refusals) handler(name string) cache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, ref *cache.Reflector, err error) {
		if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || apierrors.IsNotFound(err) {
			r.mu.Lock()
			if r.err == nil {
				r.err = fmt.Errorf("%s: %w", name, err)
				close(r.stop)
			}
			r.mu.Unlock()
		}
		cache.DefaultWatchErrorHandler(ctx, ref, err)
	}
}

func (r *refusals) first() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
