package google

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
)

// The shared provider suite, through the real google.golang.org/api/dns/v1 client (with Application
// Default Credentials from a service-account key exchanged at the emulator's /token) against the Cloud
// DNS emulator, with a batch size small enough that the suite's few hundred names take several
// Changes. A second zone (other.org) holds the record outside the managed zone.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		emu, base, key := emulator(t, googlednsemu.Options{})
		seedZones(t, emu, googlednsemu.SeedZone{Name: "example", DNSName: conformance.Zone + "."})
		p := newTestProvider(t, base, key, Config{DomainFilter: []string{conformance.Zone}, BatchChangeSize: 50})
		return conformance.Subject{
			Provider: p,
			SeedOutside: func(t *testing.T) func(t *testing.T) {
				seedZones(t, emu, googlednsemu.SeedZone{Name: "other", DNSName: "other.org.", RRSets: []googlednsemu.SeedRRSet{
					{Name: "www", Type: "A", TTL: 300, Rrdatas: []string{"192.0.2.9"}},
				}})
				return func(t *testing.T) {
					for _, rs := range dumpZone(emu, "other") {
						if rs.Type == "A" {
							if rs.Name != "www.other.org." || len(rs.Rrdatas) != 1 || rs.Rrdatas[0] != "192.0.2.9" {
								t.Fatalf("the record outside the managed zone changed: %+v", rs)
							}
							return
						}
					}
					t.Fatal("the record outside the managed zone is gone")
				}
			},
		}
	})
}
