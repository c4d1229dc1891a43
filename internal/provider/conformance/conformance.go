// Package conformance is the behaviour every provider must show, run against a fresh instance per
// case: create, update and delete of each supported type, several targets, TTL changes, ownership TXT
// records beside their records, idempotent re-application, zone boundaries, and per-change
// rejection. When the provider is backed by a real DNS server, the suite also checks what the server
// answers.
package conformance

import (
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Zone is the zone every subject serves.
const Zone = "example.com"

// Subject is one fresh provider under test, serving Zone and nothing else, with optional hooks.
type Subject struct {
	Provider provider.Provider
	// Lookup, when set, asks the DNS server that serves the provider's records for (name, qtype) and
	// returns the answer section; an empty answer (NODATA, NXDOMAIN) is not an error.
	Lookup func(t *testing.T, name string, qtype uint16) []dns.RR
	// TXTOnWire, when set, gives the text a DNS answer carries for a TXT target (the strings joined);
	// unset, it is the target itself. Servers that take zone-file presentation store a quoted target's
	// strings without the quotes, as external-dns's providers for them do (dnstext.Strings).
	TXTOnWire func(target string) string
	// SeedOutside, when set, writes a record outside Zone straight into the backend and returns a check
	// that fails the test if that record changed or disappeared.
	SeedOutside func(t *testing.T) (stillThere func(t *testing.T))
}

// Factory returns a fresh subject with an empty Zone. It registers its own cleanup with t.
type Factory func(t *testing.T) Subject

// Run runs every case, each against a fresh subject.
func Run(t *testing.T, f Factory) {
	cases := []struct {
		name string
		run  func(t *testing.T, s Subject)
	}{
		{"CreateAndReadBack", testCreateAndReadBack},
		{"UpdateTargetsAndTTL", testUpdateTargetsAndTTL},
		{"Delete", testDelete},
		{"OwnershipTXTBesideRecords", testOwnershipTXT},
		{"IdempotentReapply", testIdempotentReapply},
		{"ReplaceTypeAtName", testReplaceTypeAtName},
		{"NameOutsideZoneRejectedOthersApply", testOutsideZoneRejected},
		{"RecordsOutsideZoneUntouched", testOutsideZoneUntouched},
		{"BackendRejectionOthersApply", testBackendRejection},
		{"ManyNamesInOneCall", testManyNames},
		{"EveryDeclaredType", testEveryDeclaredType},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, f(t))
		})
	}
}
