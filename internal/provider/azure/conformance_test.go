package azure

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
)

// The shared provider suite through armdns and armprivatedns, logged in with a client secret at
// the emulator's Entra ID endpoints, against the Azure DNS emulator with small pages (so listings
// follow nextLink). A second zone of the same resource group (other.org), outside the domain
// filter, holds the record outside the managed zone.
func TestConformance(t *testing.T) {
	for _, private := range []bool{false, true} {
		name := "azure"
		if private {
			name = "azure-private-dns"
		}
		t.Run(name, func(t *testing.T) {
			conformance.Run(t, func(t *testing.T) conformance.Subject {
				emu, client, path := emulator(t, azurednsemu.Options{PageSize: 50})
				if err := emu.AddZone(private, testSub, testRG, conformance.Zone); err != nil {
					t.Fatal(err)
				}
				df, err := plan.NewDomainFilter([]string{conformance.Zone}, nil, "", "")
				if err != nil {
					t.Fatal(err)
				}
				// The suite checks what is written, not the pacing (throttle_test.go does): far above ARM's
				// write rate, or its large syncs take minutes.
				fast := Rates{ReadsPerSecond: 1e5, WritesPerSecond: 1e5, DeletesPerSecond: 1e5}
				p := newTestProvider(t, client, path, Config{Private: private, DomainFilter: df, MaxRetries: 3, Rates: fast})
				return conformance.Subject{
					Provider: p,
					SeedOutside: func(t *testing.T) func(t *testing.T) {
						seed := azurednsemu.SeedZone{Name: "other.org", RecordSets: []azurednsemu.SeedRecordSet{
							{Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.9"}}}}
						rg := azurednsemu.SeedResourceGroup{Name: testRG, Zones: []azurednsemu.SeedZone{seed}}
						if private {
							rg = azurednsemu.SeedResourceGroup{Name: testRG, PrivateZones: []azurednsemu.SeedZone{seed}}
						}
						if err := emu.Seed(azurednsemu.Seed{Subscriptions: []azurednsemu.SeedSubscription{{ID: testSub, ResourceGroups: []azurednsemu.SeedResourceGroup{rg}}}}); err != nil {
							t.Fatal(err)
						}
						return func(t *testing.T) {
							for _, z := range emu.Dump() {
								if z.Name != "other.org" {
									continue
								}
								for _, r := range z.RecordSets {
									if r.Name == "www" {
										if r.Type != "A" || len(r.Records) != 1 || r.Records[0] != "192.0.2.9" {
											t.Fatalf("the record outside the managed zone changed: %+v", r)
										}
										return
									}
								}
							}
							t.Fatal("the record outside the managed zone is gone")
						}
					},
				}
			})
		})
	}
}
