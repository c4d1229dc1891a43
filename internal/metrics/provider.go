package metrics

import (
	"context"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// instrumentedProvider counts and times the calls to a provider.
type instrumentedProvider struct {
	provider.Provider
	name string
	m    *Metrics
}

// InstrumentProvider wraps p so that its calls are counted, timed and their errors counted.
func (m *Metrics) InstrumentProvider(name string, p provider.Provider) provider.Provider {
	return &instrumentedProvider{Provider: p, name: name, m: m}
}

func (p *instrumentedProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	start := time.Now()
	eps, err := p.Provider.Records(ctx)
	p.observe("records", start, err)
	return eps, err
}

func (p *instrumentedProvider) ApplyChanges(ctx context.Context, c *plan.Changes) error {
	start := time.Now()
	err := p.Provider.ApplyChanges(ctx, c)
	p.observe("apply_changes", start, err)
	return err
}

func (p *instrumentedProvider) observe(op string, start time.Time, err error) {
	p.m.providerCalls.WithLabelValues(p.name, op).Inc()
	p.m.providerLatency.WithLabelValues(p.name, op).Observe(time.Since(start).Seconds())
	if err == nil {
		return
	}
	kind := "failed"
	if _, ok := provider.AsApplyError(err); ok {
		kind = "rejected"
	}
	p.m.providerErrors.WithLabelValues(p.name, op, kind).Inc()
}

// AdjustEndpoints forwards to the provider when it adjusts endpoints (the registry finds the method
// by type assertion, so the wrapper must offer it), and returns the endpoints unchanged otherwise.
func (p *instrumentedProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	adj, ok := p.Provider.(provider.EndpointAdjuster)
	if !ok {
		return eps, nil
	}
	start := time.Now()
	out, err := adj.AdjustEndpoints(ctx, eps)
	p.observe("adjust_endpoints", start, err)
	return out, err
}

// DomainFilter forwards to the provider's negotiated filter, if it has one.
func (p *instrumentedProvider) DomainFilter(ctx context.Context) (plan.DomainFilter, error) {
	if f, ok := p.Provider.(provider.DomainFilterer); ok {
		return f.DomainFilter(ctx)
	}
	return plan.DomainFilter{}, nil
}

// Invalidate forwards to the provider's cache, if it has one (Route 53's write-through cache, dropped
// at every resync).
func (p *instrumentedProvider) Invalidate() {
	if inv, ok := p.Provider.(interface{ Invalidate() }); ok {
		inv.Invalidate()
	}
}
