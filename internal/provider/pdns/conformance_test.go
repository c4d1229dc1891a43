package pdns

import (
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
)

// The shared suite against a real pdns_server 4.7 serving example.com, with other.org beside it on
// the same server (outside the domain filter) for the "records outside the zone" case.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		s := startServer(t, "example.com", "other.org")
		return conformance.Subject{
			Provider:  s.p,
			TXTOnWire: conformance.ZoneFileTXTOnWire,
			Lookup: func(t *testing.T, name string, qtype uint16) []dns.RR {
				return s.lookup(t, name, qtype)
			},
			SeedOutside: func(t *testing.T) func(t *testing.T) {
				s.seed(t, "other.org", "www.other.org", "A", 300, "192.0.2.7")
				return func(t *testing.T) {
					got := s.rrsets(t, "other.org")["www.other.org A"]
					if len(got.Records) != 1 || got.Records[0].Content != "192.0.2.7" || got.TTL != 300 {
						t.Fatalf("record outside the managed zones changed: %+v", got)
					}
				}
			},
		}
	})
}
