package source

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ServiceSource publishes endpoints for Services. It reads only from its caches (informers or a
// manifest), so Endpoints is cheap to call often.
type ServiceSource struct {
	c        *compiled
	services corelisters.ServiceLister
	state    clusterState
	handlers eventHandlers
	// live: the objects come from the API server (not from manifests), so Events can be sent for them.
	live bool
	// slicesSkipped: RBAC denies EndpointSlices (Config.SkipResources), so headless services cannot be
	// generated; their records are reported unreadable and kept.
	slicesSkipped bool
	// merged lets events make the endpoints of the Services they name (ObjectEndpoints).
	merged mergedObjects
	// byType, podsByNode and slicesByNode are the informers' indexes a node's event reads to name
	// the Services that read the node (service_events.go); nil where not watched.
	byType, podsByNode, slicesByNode cache.Indexer
}

// endpointSlicesResource names the EndpointSlice resource as Config.SkipResources does.
const endpointSlicesResource = "endpointslices.discovery.k8s.io"

// skipped is the SkipResources the source runs with (for Deferred).
func (s *ServiceSource) skipped() []string { return s.c.SkipResources }

var _ ObjectSource = (*ServiceSource)(nil)

// serviceResourceKind is the resource-label kind of a Service's endpoints.
const serviceResourceKind = "service"

// Endpoints returns the endpoints of every admitted service. Services are handled in namespace/name
// order and endpoints sharing a key are merged into the first, so the same service stays the
// "resource" of a merged record from run to run.
func (s *ServiceSource) Endpoints(ctx context.Context) (Result, error) {
	svcs, err := s.services.List(labels.Everything())
	if err != nil {
		return Result{}, err
	}
	sort.Slice(svcs, func(i, j int) bool { return objectLess(svcs[i], svcs[j]) })
	var problems problemList
	var eps []*endpoint.Endpoint
	var unreadable []string
	for _, svc := range svcs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if s.unreadableHeadless(svc) {
			unreadable = append(unreadable, "service/"+svc.Namespace+"/"+svc.Name)
			continue
		}
		eps = append(eps, s.c.serviceEndpoints(svc, s.state, &problems)...)
	}
	s.merged.remember(eps)
	return Result{Endpoints: mergeEndpoints(eps), Problems: problems.items, Unreadable: unreadable}, nil
}

// NewServiceFromLister returns a Service source reading the store behind lister, which its owner
// keeps up to date, for Services whose records need no pods, nodes or EndpointSlices (their types'
// records then have no targets). It sends no events of its own.
func NewServiceFromLister(lister corelisters.ServiceLister, cfg Config) (*ServiceSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	return &ServiceSource{c: c, services: lister}, nil
}

// ObjectKinds implements ObjectSource: a Service's endpoints depend on it, on the Services it is
// merged with (ObjectEndpoints makes those too), and on the pods, EndpointSlices and nodes whose
// events name it.
func (s *ServiceSource) ObjectKinds() []string { return []string{serviceResourceKind} }

// AddObjectHandler implements ObjectSource.
func (s *ServiceSource) AddObjectHandler(fn func(resource string)) { s.handlers.addObject(fn) }

// ObjectEndpoints implements ObjectSource: the named Services and those sharing a name with them,
// merged as Endpoints merges them, made by the function Endpoints uses for each Service.
func (s *ServiceSource) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	return s.merged.endpointsOf(ctx, resources, s.ownEndpoints, compareNamespacedResources)
}

// ownEndpoints makes one Service's endpoints, as Endpoints does before merging across Services.
func (s *ServiceSource) ownEndpoints(resource string, problems *Problems) ([]*endpoint.Endpoint, bool, error) {
	svc, found, err := cachedByLabel(resource, serviceResourceKind, func(namespace, name string) (*corev1.Service, error) {
		return s.services.Services(namespace).Get(name)
	})
	if err != nil || !found {
		return nil, false, err
	}
	if s.unreadableHeadless(svc) {
		return nil, false, fmt.Errorf("%s is headless and its EndpointSlices are unreadable", resource)
	}
	return s.c.serviceEndpoints(svc, s.state, &problems.list), true, nil
}

// unreadableHeadless: svc is a headless Service whose EndpointSlices RBAC denies, so its records
// cannot be made.
func (s *ServiceSource) unreadableHeadless(svc *corev1.Service) bool {
	return s.slicesSkipped && svc.Spec.ClusterIP == corev1.ClusterIPNone && (svc.Spec.Type == corev1.ServiceTypeClusterIP || svc.Spec.Type == "")
}

// AddEventHandler registers fn to be called on every change of a watched object.
func (s *ServiceSource) AddEventHandler(fn func()) { s.handlers.add(fn) }

// serviceInformersNeeded says which of the supporting kinds the configured service types read:
// NodePort needs nodes and pods (externalTrafficPolicy Local); headless ClusterIP services need
// EndpointSlices, pods and nodes (endpoints-type NodeExternalIP). Leaving them out saves the memory
// of cluster-wide pod caches.
func (c *compiled) serviceInformersNeeded() (nodes, pods, slices bool) {
	nodePort := c.wantsServiceType(corev1.ServiceTypeNodePort)
	clusterIP := c.wantsServiceType(corev1.ServiceTypeClusterIP)
	return nodePort || clusterIP, nodePort || clusterIP, clusterIP
}

type namespacedName interface {
	GetNamespace() string
	GetName() string
}

func objectLess(a, b namespacedName) bool {
	if a.GetNamespace() != b.GetNamespace() {
		return a.GetNamespace() < b.GetNamespace()
	}
	return a.GetName() < b.GetName()
}
