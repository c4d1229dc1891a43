package aws

import (
	"context"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// The shared provider suite, through the real aws-sdk-go-v2 against the Route 53 emulator. A second
// zone (other.org) holds the record outside the managed zone. It runs twice: as the pipeline uses the
// provider (Records served from the write-through cache), and with every Records listing Route 53
// afresh, so that what the suite reads back is what the emulator holds, not what the cache believes.
func TestConformance(t *testing.T) {
	staticCredentials(t)
	t.Run("Cached", func(t *testing.T) { conformance.Run(t, subject(false)) })
	t.Run("Listed", func(t *testing.T) { conformance.Run(t, subject(true)) })
}

// relisting drops the cache before every Records.
type relisting struct{ *Provider }

func (r relisting) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	r.Invalidate()
	return r.Provider.Records(ctx)
}

func subject(relist bool) conformance.Factory {
	return func(t *testing.T) conformance.Subject {
		srv, url := emulator(t, route53emu.Options{})
		seed(t, srv, route53emu.SeedZone{Name: conformance.Zone})
		p := newProvider(t, url, Config{DomainFilter: []string{conformance.Zone}, EvaluateTargetHealth: true})
		var prov provider.Provider = p
		if relist {
			prov = relisting{p}
		}
		return conformance.Subject{
			Provider: prov,
			SeedOutside: func(t *testing.T) func(t *testing.T) {
				seed(t, srv, route53emu.SeedZone{Name: "other.org", Records: []route53emu.RecordSet{{
					Name: "www.other.org", Type: "A", TTL: num(60), ResourceRecords: values("192.0.2.9"),
				}}})
				return func(t *testing.T) {
					if _, ok := dump(srv, "other.org.")["www.other.org. A "]; !ok {
						t.Fatalf("the record outside the managed zone is gone: %v", dump(srv, "other.org."))
					}
				}
			},
		}
	}
}
