package coredns

import (
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// zoneSet is the normalised DomainFilter. Empty means every name.
type zoneSet []string

func newZoneSet(filter []string) zoneSet {
	var z zoneSet
	for _, f := range filter {
		f = strings.ToLower(strings.Trim(strings.TrimSpace(f), "."))
		if f != "" {
			z = append(z, f)
		}
	}
	return z
}

// contains reports whether a name is a zone or below one, on label boundaries ("xexample.com" is not
// in "example.com").
func (z zoneSet) contains(name string) bool {
	if len(z) == 0 {
		return true
	}
	for _, zone := range z {
		if endpoint.InDomain(name, zone) {
			return true
		}
	}
	return false
}

// isApex reports whether a name is one of the zones.
func (z zoneSet) isApex(name string) bool {
	for _, zone := range z {
		if name == zone {
			return true
		}
	}
	return false
}

func (z zoneSet) notInZones(name string) error {
	return fmt.Errorf("name %s is not in any zone of this provider (%s)", name, strings.Join(z, ", "))
}

// reservedName reports names CoreDNS itself uses under a zone: "apex.dns.<zone>" holds what an apex
// A/AAAA query answers and "ns.dns.<zone>" the zone's NS records. Zonekeeper writes apex entries
// itself and never lists or accepts these names as records.
func reservedName(name string) bool {
	return strings.HasPrefix(name, "apex.dns.") || strings.HasPrefix(name, "ns.dns.")
}
