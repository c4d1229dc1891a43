// Package noop is the registry that records no ownership (--registry=noop). Every record in the
// managed zones counts as the caller's, so under `sync` records that no source asks for are deleted:
// it exists for external-dns compatibility and for zones that zonekeeper alone writes.
package noop

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Registry passes records and changes straight through.
type Registry struct{ provider provider.Provider }

// New returns a noop registry over p.
func New(p provider.Provider) *Registry { return &Registry{provider: p} }

// Records implements registry.Registry.
func (r *Registry) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	return r.provider.Records(ctx)
}

// ApplyChanges implements registry.Registry.
func (r *Registry) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	return r.provider.ApplyChanges(ctx, c)
}

// OwnerID implements registry.Registry; the empty owner makes the plan treat unowned records as ours.
func (r *Registry) OwnerID() string { return "" }

// Invalidate forwards to a provider with a cache of its own.
func (r *Registry) Invalidate() { provider.Wrapped{Provider: r.provider}.Invalidate() }

// Probe forwards to the provider's probe, if it has one.
func (r *Registry) Probe(ctx context.Context) error {
	return provider.Wrapped{Provider: r.provider}.Probe(ctx)
}

// DomainFilter forwards to the provider's negotiated filter, if it has one.
func (r *Registry) DomainFilter(ctx context.Context) (plan.DomainFilter, error) {
	return provider.Wrapped{Provider: r.provider}.DomainFilter(ctx)
}

// AdjustEndpoints forwards to the provider, like the TXT registry.
func (r *Registry) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return provider.Wrapped{Provider: r.provider}.AdjustEndpoints(ctx, eps)
}
