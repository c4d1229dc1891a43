package coredns

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
)

// TestConformance runs the provider suite on a real etcd and checks the answers of a real CoreDNS
// serving the same prefix.
func TestConformance(t *testing.T) {
	etcd := startEtcd(t)
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		b := newBed(t, etcd, true, conformance.Zone)
		return conformance.Subject{
			Provider: b.provider,
			Lookup:   b.lookup,
			SeedOutside: func(t *testing.T) func(t *testing.T) {
				const key, value = "org/other/www/x1", `{"host":"192.0.2.1","ttl":300}`
				b.put(t, key, value)
				return func(t *testing.T) {
					if got := b.dump(t)[key]; got != value {
						t.Fatalf("record outside the zone changed: %q → %q", value, got)
					}
				}
			},
		}
	})
}
