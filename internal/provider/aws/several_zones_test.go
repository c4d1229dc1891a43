package aws

import "testing"

// TestInSeveralZonesAgreesWithZonesFor: the count pinnedTo uses to skip zonesFor is zonesFor's,
// over public and private zones nested and of one name.
func TestInSeveralZonesAgreesWithZonesFor(t *testing.T) {
	zoneLists := [][]zone{
		{{id: "P", name: "example.com"}},
		{{id: "P", name: "example.com"}, {id: "Q", name: "example.com", private: true}},
		{{id: "P", name: "example.com"}, {id: "S", name: "sub.example.com"}},
		{{id: "Q", name: "example.com", private: true}, {id: "R", name: "sub.example.com", private: true}},
		{{id: "Q", name: "example.com", private: true}},
		{{id: "P", name: "example.com"}, {id: "S", name: "sub.example.com"}, {id: "R", name: "sub.example.com", private: true}},
		{{id: "O", name: "example.org"}, {id: "Q", name: "example.com", private: true}},
	}
	names := []string{"example.com", "www.example.com", "sub.example.com", "a.sub.example.com", "example.org", "xsub.example.com", "other.net"}
	for _, zs := range zoneLists {
		for _, name := range names {
			if got, want := inSeveralZones(name, zs), len(zonesFor(name, zs)) >= 2; got != want {
				t.Errorf("%s in %v: inSeveralZones = %v, zonesFor has %d zones", name, zs, got, len(zonesFor(name, zs)))
			}
		}
	}
}
