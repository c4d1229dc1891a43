package crd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry"
)

var _ registry.Registry = (*Registry)(nil)

// Config is what the CRD registry needs besides the provider.
type Config struct {
	// Client reaches the cluster that holds the DNSRecords.
	Client dynamic.Interface
	// Namespace holds the DNSRecords (--crd-registry-namespace).
	Namespace string
	// OwnerID is written into the owner label of every DNSRecord this registry creates.
	OwnerID string
	// Log gets one warning per unreadable DNSRecord (by name and resource version).
	Log *slog.Logger
}

// Registry is the CRD registry. Calls that reach the provider run one at a time, as in the TXT
// registry: a listing never interleaves with an apply.
type Registry struct {
	provider  provider.Provider
	records   dynamic.ResourceInterface
	namespace string
	ownerID   string
	log       *slog.Logger

	opMu   sync.Mutex
	warned map[string]bool // "name@resourceVersion" of unreadable objects already reported; under opMu
}

// New returns a CRD registry over p.
func New(p provider.Provider, cfg Config) (*Registry, error) {
	switch {
	case p == nil:
		return nil, errors.New("crd registry: no provider")
	case cfg.Client == nil:
		return nil, errors.New("crd registry: no Kubernetes client")
	case cfg.OwnerID == "":
		return nil, errors.New("--txt-owner-id must not be empty: it is the owner label of the DNSRecords")
	case cfg.Namespace == "":
		return nil, errors.New("crd registry: no namespace")
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Registry{
		provider: p, records: cfg.Client.Resource(Resource).Namespace(cfg.Namespace),
		namespace: cfg.Namespace, ownerID: cfg.OwnerID, log: log, warned: map[string]bool{},
	}, nil
}

// OwnerID implements registry.Registry.
func (r *Registry) OwnerID() string { return r.ownerID }

// Namespace is where the registry keeps its DNSRecords.
func (r *Registry) Namespace() string { return r.namespace }

// Records implements registry.Registry: the provider's records, each labelled with the owner and the
// resource its DNSRecord names, if it has one. The endpoints are fresh copies the caller may change.
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	r.opMu.Lock()
	defer r.opMu.Unlock()
	records, err := r.provider.Records(ctx)
	partial, isPartial := provider.AsUnreadableZones(err)
	if err != nil && !isPartial {
		return nil, err
	}
	objs, err := r.list(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*endpoint.Endpoint, 0, len(records))
	for _, rec := range records {
		ep := rec.DeepCopy()
		// Ownership comes from the DNSRecords alone; whatever the provider reports is not ownership.
		delete(ep.Labels, endpoint.OwnerLabelKey)
		delete(ep.Labels, endpoint.ResourceLabelKey)
		if obj, ok := objs[objectName(ep.Key())]; ok && obj.owner() != "" {
			ep.WithLabel(endpoint.OwnerLabelKey, obj.owner())
			if res := obj.Spec.Endpoint.Labels[endpoint.ResourceLabelKey]; res != "" {
				ep.WithLabel(endpoint.ResourceLabelKey, res)
			}
		}
		out = append(out, ep)
	}
	if isPartial {
		// The zones the provider could not list are named; the controller plans the others.
		return out, partial
	}
	return out, nil
}

// list reads every DNSRecord of the namespace, whatever its owner (a record another owner claims must
// be known to be theirs), by name. Unreadable objects are reported and left out. Callers hold opMu.
func (r *Registry) list(ctx context.Context) (map[string]*dnsRecord, error) {
	l, err := r.records.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list DNSRecords in namespace %s: %w", r.namespace, err)
	}
	out := make(map[string]*dnsRecord, len(l.Items))
	for i := range l.Items {
		obj, err := decode(&l.Items[i])
		if err != nil {
			key := l.Items[i].GetName() + "@" + l.Items[i].GetResourceVersion()
			if !r.warned[key] {
				r.warned[key] = true
				r.log.Warn("Ignored an unreadable DNSRecord", "error", err.Error())
			}
			continue
		}
		out[obj.Name] = obj
	}
	return out, nil
}

// Invalidate forwards to a provider with a cache of its own; the registry keeps no cache.
func (r *Registry) Invalidate() { provider.Wrapped{Provider: r.provider}.Invalidate() }

// CheckZones forwards to the provider's zone probe (provider.ZoneProber): this registry keeps no
// record cache of its own, so the provider's is all there is to refresh.
func (r *Registry) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	return provider.Wrapped{Provider: r.provider}.CheckZones(ctx, relist)
}

// Probe forwards to the provider's probe, if it has one.
func (r *Registry) Probe(ctx context.Context) error {
	return provider.Wrapped{Provider: r.provider}.Probe(ctx)
}

// DomainFilter forwards to the provider's negotiated filter, if it has one.
func (r *Registry) DomainFilter(ctx context.Context) (plan.DomainFilter, error) {
	return provider.Wrapped{Provider: r.provider}.DomainFilter(ctx)
}

// AdjustEndpoints lets the provider put desired endpoints into the form its Records returns.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return provider.Wrapped{Provider: r.provider}.AdjustEndpoints(ctx, eps)
}
