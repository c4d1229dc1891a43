package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/route53"
)

// Probe implements provider.Prober: one ListHostedZones call of one item per account. After a failed
// run the controller probes before listing every zone again, so an outage of the API costs a call per
// backoff step, not a full listing.
func (p *Provider) Probe(ctx context.Context) error {
	for _, a := range p.accounts {
		if _, err := a.api.ListHostedZones(ctx, &route53.ListHostedZonesInput{MaxItems: ptr(int32(1))}); err != nil {
			if a.profile != "" {
				return fmt.Errorf("aws: profile %s: %w", a.profile, err)
			}
			return fmt.Errorf("aws: %w", err)
		}
	}
	return nil
}
