package google

import (
	"slices"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
)

const defaultNetwork = "https://www.googleapis.com/compute/v1/projects/emu-project/global/networks/default"

// Zones are selected as external-dns selects them: peering zones never, --google-zone-visibility by
// visibility, --domain-filter by the zone's DNS name inside a filter domain, --zone-id-filter by a
// suffix of the id or the name.
func TestZoneSelection(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{PageSize: 2}) // zones over several pages
	seedZones(t, emu,
		googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."},
		googlednsemu.SeedZone{Name: "priv", DNSName: "internal.example.com.", Visibility: "private", Networks: []string{defaultNetwork}},
		googlednsemu.SeedZone{Name: "peer", DNSName: "peer.example.com.", Visibility: "private", Networks: []string{defaultNetwork}, PeeringTargetNetwork: defaultNetwork},
		googlednsemu.SeedZone{Name: "org", DNSName: "example.org."},
		googlednsemu.SeedZone{Name: "sub", DNSName: "sub.example.org."},
	)
	for _, c := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{"all but peering", Config{}, []string{"org", "priv", "pub", "sub"}},
		{"public", Config{ZoneVisibility: VisibilityPublic}, []string{"org", "pub", "sub"}},
		{"private", Config{ZoneVisibility: VisibilityPrivate}, []string{"priv"}},
		{"domain filter", Config{DomainFilter: []string{"example.com"}}, []string{"priv", "pub"}},
		{"filter below a zone manages no zone", Config{DomainFilter: []string{"x.example.org"}}, nil},
		{"leading dot", Config{DomainFilter: []string{".example.org"}}, []string{"sub"}},
		{"zone id filter by name suffix", Config{ZoneIDFilter: []string{"ub"}}, []string{"pub", "sub"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newTestProvider(t, base, key, c.cfg)
			zs, err := p.listZones(testCtx(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, z := range zs {
				got = append(got, z.name)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("zones %v, want %v", got, c.want)
			}
		})
	}
}

// A record set is written to the zone that holds its name most closely, and a private zone is written
// like a public one.
func TestRecordsGoToTheClosestZone(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu,
		googlednsemu.SeedZone{Name: "org", DNSName: "example.org."},
		googlednsemu.SeedZone{Name: "sub", DNSName: "sub.example.org.", Visibility: "private", Networks: []string{defaultNetwork}},
	)
	p := newTestProvider(t, base, key, Config{})
	if err := applyCreates(t, p, ep("a.sub.example.org", "A", 0, "10.0.0.1"), ep("a.example.org", "A", 60, "10.0.0.2")); err != nil {
		t.Fatal(err)
	}
	if setsOf(emu, "sub")["a.sub.example.org. A"] != "300 10.0.0.1" || setsOf(emu, "org")["a.example.org. A"] != "60 10.0.0.2" {
		t.Fatalf("org %v sub %v", setsOf(emu, "org"), setsOf(emu, "sub"))
	}
}
