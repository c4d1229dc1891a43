package metrics

import (
	"context"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// instrumentedProvider counts and times the calls to a provider; provider.Wrapped forwards the
// optional interfaces the registry finds by type assertion.
type instrumentedProvider struct {
	provider.Wrapped
	name string
	m    *Metrics
}

// InstrumentProvider wraps p so that its calls are counted, timed and their errors counted.
func (m *Metrics) InstrumentProvider(name string, p provider.Provider) provider.Provider {
	return &instrumentedProvider{Wrapped: provider.Wrapped{Provider: p}, name: name, m: m}
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

// ListsExactlyWhatItWrote forwards provider.ExactWriter: the wrapper passes every write through.
func (p *instrumentedProvider) ListsExactlyWhatItWrote() bool {
	w, ok := p.Provider.(provider.ExactWriter)
	return ok && w.ListsExactlyWhatItWrote()
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

// AdjustEndpoints is timed when the provider adjusts endpoints (a webhook asks its server).
func (p *instrumentedProvider) AdjustEndpoints(ctx context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	if _, ok := p.Provider.(provider.EndpointAdjuster); !ok {
		return eps, nil
	}
	start := time.Now()
	out, err := p.Wrapped.AdjustEndpoints(ctx, eps)
	p.observe("adjust_endpoints", start, err)
	return out, err
}
