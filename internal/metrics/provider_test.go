package metrics

import (
	"context"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

// adjustingProvider has the optional methods the registry looks for: AdjustEndpoints (Route 53, webhook)
// and Invalidate (Route 53's write-through cache, dropped at every resync).
type adjustingProvider struct {
	*inmemory.Provider
	invalidated int
}

func (p *adjustingProvider) AdjustEndpoints(_ context.Context, eps []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	out := make([]*endpoint.Endpoint, len(eps))
	for i, e := range eps {
		out[i] = e.DeepCopy()
		out[i].RecordTTL = 42
	}
	return out, nil
}

func (p *adjustingProvider) Invalidate() { p.invalidated++ }

// Instrumenting a provider must not hide its optional methods: the registry finds them by type
// assertion, and without them Route 53 aliases churn and its cache is never refreshed.
func TestInstrumentedProviderKeepsOptionalMethods(t *testing.T) {
	inner := &adjustingProvider{Provider: inmemory.New("example.com")}
	p := New("test").InstrumentProvider("test", inner)
	adj, ok := p.(provider.EndpointAdjuster)
	if !ok {
		t.Fatal("the instrumented provider is no EndpointAdjuster")
	}
	out, err := adj.AdjustEndpoints(context.Background(), []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.1")})
	if err != nil || len(out) != 1 || out[0].RecordTTL != 42 {
		t.Errorf("AdjustEndpoints = %v, %v: not forwarded", out, err)
	}
	inv, ok := p.(interface{ Invalidate() })
	if !ok {
		t.Fatal("the instrumented provider has no Invalidate")
	}
	inv.Invalidate()
	if inner.invalidated != 1 {
		t.Error("Invalidate not forwarded")
	}
}

// A provider without the optional methods keeps its endpoints as they are.
func TestInstrumentedProviderWithoutAdjuster(t *testing.T) {
	p := New("test").InstrumentProvider("test", inmemory.New("example.com"))
	in := []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.1")}
	if adj, ok := p.(provider.EndpointAdjuster); ok {
		out, err := adj.AdjustEndpoints(context.Background(), in)
		if err != nil || len(out) != 1 || out[0] != in[0] {
			t.Errorf("AdjustEndpoints = %v, %v, want the input", out, err)
		}
	}
	if inv, ok := p.(interface{ Invalidate() }); ok {
		inv.Invalidate() // must not panic
	}
}
