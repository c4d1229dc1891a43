package source

import (
	"context"
	"sort"

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

var _ Source = (*IngressSource)(nil)

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
