package pdns

import (
	"testing"
)

func TestZoneSelection(t *testing.T) {
	server := []zoneInfo{{ID: "example.com.", Name: "example.com."}, {ID: "sub.example.com.", Name: "sub.example.com."},
		{ID: "notexample.com.", Name: "notexample.com."}, {ID: "other.org.", Name: "other.org."}}
	f := newDomainFilter([]string{"Example.com."})
	zones := f.managedZones(server)
	if len(zones) != 2 || zones[0].name != "example.com" || zones[1].name != "sub.example.com" {
		t.Fatalf("managed zones: %+v", zones)
	}
	for name, want := range map[string]string{
		"example.com": "example.com", "www.example.com": "example.com", "a.sub.example.com": "sub.example.com",
		"sub.example.com": "sub.example.com", "www.notexample.com": "", "xsub.example.com": "example.com",
	} {
		z, ok := zoneFor(zones, name)
		if (want == "") == ok || (ok && z.name != want) {
			t.Errorf("zoneFor(%s) = %q %v, want %q", name, z.name, ok, want)
		}
	}
	// A filter below a zone manages that zone, but only names inside the filter.
	narrow := newDomainFilter([]string{"dev.example.com"})
	if z := narrow.managedZones(server); len(z) != 1 || z[0].name != "example.com" {
		t.Fatalf("filter dev.example.com manages %+v", z)
	}
	if narrow.allows("www.example.com") || !narrow.allows("a.dev.example.com") {
		t.Error("names outside the narrow filter allowed, or inside refused")
	}
	if all := newDomainFilter(nil).managedZones(server); len(all) != 4 {
		t.Errorf("no filter: %d zones, want all 4", len(all))
	}
}

func TestCulpritFromPowerDNSMessages(t *testing.T) {
	units := []*unit{
		{rrset: rrset{Name: "a.example.com.", Type: "A"}},
		{rrset: rrset{Name: "www.example.com.", Type: "CNAME"}},
		{rrset: rrset{Name: "t.example.com.", Type: "TXT"}},
	}
	for msg, want := range map[string]int{
		"RRset www.example.com. IN CNAME: Conflicts with pre-existing RRset":                       1,
		"Record t.example.com./TXT 'x': Not in expected format (parsed as '\"x\"')":                2,
		"Record a.example.com./A '10.0.0.300': Parsing record content (try 'pdnsutil check-zone')": 0,
		"RRset WWW.example.com. IN CNAME has more than one record":                                 1,
		"RRset other.example.com. IN A: Name is out of zone":                                       -1,
		"Something went wrong": -1,
	} {
		if got := culprit(msg, units); got != want {
			t.Errorf("culprit(%q) = %d, want %d", msg, got, want)
		}
	}
}
