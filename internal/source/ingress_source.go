package source

import (
	"context"
	"slices"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	networkinglisters "k8s.io/client-go/listers/networking/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// IngressSource publishes endpoints for networking.k8s.io/v1 Ingresses, from its caches only.
type IngressSource struct {
	c         *compiled
	ingresses networkinglisters.IngressLister
	handlers  eventHandlers
	// live: the objects come from the API server (not from manifests), so Events can be sent for them.
	live bool
}

var _ ObjectSource = (*IngressSource)(nil)

// ingressKind is the resource-label kind of an Ingress's endpoints.
const ingressKind = "ingress"

// Endpoints returns the endpoints of every admitted ingress, in namespace/name order. Records are
// merged within one ingress only: two ingresses claiming one name are left to the plan's conflict
// resolution, as in external-dns.
func (s *IngressSource) Endpoints(ctx context.Context) (Result, error) {
	ings, err := s.ingresses.List(labels.Everything())
	if err != nil {
		return Result{}, err
	}
	sort.Slice(ings, func(i, j int) bool { return objectLess(ings[i], ings[j]) })
	var problems problemList
	eps := make([]*endpoint.Endpoint, 0, len(ings))
	for _, ing := range ings {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.ingressEndpoints(ing, &problems)...)
	}
	return Result{Endpoints: eps, Problems: problems.items}, nil
}

// AddEventHandler registers fn to be called on every change of an ingress.
func (s *IngressSource) AddEventHandler(fn func()) { s.handlers.add(fn) }

// ObjectKinds implements ObjectSource: an Ingress's endpoints depend on that Ingress alone.
func (s *IngressSource) ObjectKinds() []string { return []string{ingressKind} }

// AddObjectHandler implements ObjectSource.
func (s *IngressSource) AddObjectHandler(fn func(resource string)) { s.handlers.addObject(fn) }

// ObjectEndpoints implements ObjectSource, with the function Endpoints uses for each Ingress.
func (s *IngressSource) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	var problems problemList
	var eps []*endpoint.Endpoint
	for _, r := range slices.Sorted(slices.Values(resources)) {
		kind, namespace, name := endpoint.SplitResource(r)
		if kind != ingressKind {
			continue
		}
		ing, err := s.ingresses.Ingresses(namespace).Get(name)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return Result{}, err
		}
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.ingressEndpoints(ing, &problems)...)
	}
	return Result{Endpoints: eps, Problems: problems.items}, nil
}

// NewIngressFromLister returns an Ingress source reading the store behind lister, which its owner
// keeps up to date (NewIngress runs an informer for it). It sends no events of its own.
func NewIngressFromLister(lister networkinglisters.IngressLister, cfg Config) (*IngressSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	return &IngressSource{c: c, ingresses: lister}, nil
}
