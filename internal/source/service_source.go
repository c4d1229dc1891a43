package source

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"

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
}

// endpointSlicesResource names the EndpointSlice resource as Config.SkipResources does.
const endpointSlicesResource = "endpointslices.discovery.k8s.io"

// skipped is the SkipResources the source runs with (for Deferred).
func (s *ServiceSource) skipped() []string { return s.c.SkipResources }

var _ Source = (*ServiceSource)(nil)

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
		if s.slicesSkipped && svc.Spec.ClusterIP == corev1.ClusterIPNone && (svc.Spec.Type == corev1.ServiceTypeClusterIP || svc.Spec.Type == "") {
			unreadable = append(unreadable, "service/"+svc.Namespace+"/"+svc.Name)
			continue
		}
		eps = append(eps, s.c.serviceEndpoints(svc, s.state, &problems)...)
	}
	return Result{Endpoints: mergeEndpoints(eps), Problems: problems.items, Unreadable: unreadable}, nil
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
