package rfc2136

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// AdjustEndpoints implements provider.EndpointAdjuster: desired TXT targets take the form Records
// returns (a quoted SPF value is read back as its text), so planning does not churn.
func (p *Provider) AdjustEndpoints(_ context.Context, desired []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return provider.CanonicalTXT(desired, dnstext.Canonical), nil
}
