package azure

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// TestAnotherProvidersPropertyDoesNotRewriteTheRecord: Azure DNS reads no property, so a record and its
// ownership TXT list without the ones sources copy from other providers' annotations; the unchanged
// record must plan nothing after a listing, and updating its target must not rewrite its TXT
// (providertest.ForeignPropertiesLeaveTheRecordAlone).
func TestAnotherProvidersPropertyDoesNotRewriteTheRecord(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, client, path, Config{})
	providertest.ForeignPropertiesLeaveTheRecordAlone(t, p, (&AzureFlags{}).Kinds()[0].Properties,
		endpoint.ProviderSpecificProperty{Name: "cloudflare/proxied", Value: "true"},
		endpoint.ProviderSpecificProperty{Name: "azure/anything", Value: "x"})
}
