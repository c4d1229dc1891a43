package source

import (
	"context"
	"slices"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// IngressSource publishes endpoints for networking.k8s.io/v1 Ingresses, from its caches only.
type IngressSource struct {
	c         *compiled
	ingresses ingressReader
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
	objs, err := s.ingresses.list()
	if err != nil {
		return Result{}, err
	}
	ings := make([]readIngress, len(objs))
	for i, obj := range objs {
		if ings[i].ing, ings[i].full, err = ingressOf(obj); err != nil {
			return Result{}, err
		}
	}
	sort.Slice(ings, func(i, j int) bool { return objectLess(ings[i].ing, ings[j].ing) })
	var problems problemList
	eps := make([]*endpoint.Endpoint, 0, len(ings))
	for _, r := range ings {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.cachedIngressEndpoints(r.ing, r.full, &problems)...)
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
		obj, found, err := s.ingresses.get(namespace, name)
		if err != nil {
			return Result{}, err
		}
		if !found {
			continue
		}
		ing, full, err := ingressOf(obj)
		if err != nil {
			return Result{}, err
		}
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.cachedIngressEndpoints(ing, full, &problems)...)
	}
	return Result{Endpoints: eps, Problems: problems.items}, nil
}

// NewIngressFromLister returns an Ingress source reading the store behind lister, which its owner
// keeps up to date with whole Ingresses (NewIngress runs an informer for it). It sends no events of
// its own.
func NewIngressFromLister(lister networkinglisters.IngressLister, cfg Config) (*IngressSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	return &IngressSource{c: c, ingresses: listerIngresses{lister}}, nil
}

// NewIngressFromStore is NewIngressFromLister for a store that its owner fills as the Ingress
// informer does (IngressInformerStore: whole Ingresses or the compact ones its transform makes).
func NewIngressFromStore(store cache.Store, cfg Config) (*IngressSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	return &IngressSource{c: c, ingresses: storeIngresses{store}}, nil
}

// readIngress is one Ingress as a source pass reads it (ingressOf).
type readIngress struct {
	ing  *cachedIngress
	full *networkingv1.Ingress
}

// ingressReader is where an Ingress source reads its Ingresses: every one, or one by its key. The
// objects are *networkingv1.Ingress or *cachedIngress (ingressOf).
type ingressReader interface {
	list() ([]any, error)
	get(namespace, name string) (obj any, found bool, err error)
}

// storeIngresses reads an informer's store.
type storeIngresses struct{ store cache.Store }

func (s storeIngresses) list() ([]any, error) { return s.store.List(), nil }

func (s storeIngresses) get(namespace, name string) (any, bool, error) {
	return s.store.GetByKey(namespace + "/" + name)
}

// listerIngresses reads whole Ingresses through a lister.
type listerIngresses struct {
	lister networkinglisters.IngressLister
}

func (l listerIngresses) list() ([]any, error) {
	ings, err := l.lister.List(labels.Everything())
	out := make([]any, len(ings))
	for i, ing := range ings {
		out[i] = ing
	}
	return out, err
}

func (l listerIngresses) get(namespace, name string) (any, bool, error) {
	ing, err := l.lister.Ingresses(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	return ing, err == nil, err
}
