package google

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// TestAnotherProvidersPropertyDoesNotRewriteTheRecord: Cloud DNS reads no property, so a record and its
// ownership TXT list without the ones sources copy from other providers' annotations; the unchanged
// record must plan nothing after a listing, and updating its target must not rewrite its TXT
// (providertest.ForeignPropertiesLeaveTheRecordAlone).
func TestAnotherProvidersPropertyDoesNotRewriteTheRecord(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."})
	p := newTestProvider(t, base, key, Config{})
	providertest.ForeignPropertiesLeaveTheRecordAlone(t, p, (&GoogleFlags{}).Kind().Properties,
		endpoint.ProviderSpecificProperty{Name: "cloudflare/proxied", Value: "true"},
		endpoint.ProviderSpecificProperty{Name: "aws/evaluate-target-health", Value: "true"})
}
