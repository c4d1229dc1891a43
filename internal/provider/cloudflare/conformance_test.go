package cloudflare

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
)

// The shared provider suite, through the real cloudflare-go v7 SDK against the Cloudflare emulator,
// with a batch size small enough that the suite's few hundred names take several batches. A second
// zone (other.org) holds the record outside the managed zone.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		emu, base := emulator(t, cloudflareemu.Options{})
		seedZones(t, emu, cloudflareemu.SeedZone{Name: conformance.Zone, Plan: "enterprise"}) // the suite writes TTL 30
		p := newTestProvider(t, base, Config{DomainFilter: []string{conformance.Zone}, BatchChangeSize: 50})
		return conformance.Subject{
			Provider: p,
			SeedOutside: func(t *testing.T) func(t *testing.T) {
				seedZones(t, emu, cloudflareemu.SeedZone{Name: "other.org", Records: []cloudflareemu.SeedRecord{
					{Name: "www.other.org", Type: "A", Content: "192.0.2.9", TTL: 300},
				}})
				return func(t *testing.T) {
					recs := dumpZone(emu, "other.org")
					if len(recs) != 1 || recs[0].Content != "192.0.2.9" {
						t.Fatalf("the record outside the managed zone changed: %+v", recs)
					}
				}
			},
		}
	})
}
