package rfc2136

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/miekg/dns"
)

// zoneSet is the configured zones, as lower-case FQDNs, most specific (most labels) first.
type zoneSet []string

func newZoneSet(zones []string) (zoneSet, error) {
	seen := map[string]bool{}
	var z zoneSet
	for _, raw := range zones {
		name := strings.ToLower(strings.TrimSpace(raw))
		if name == "" || name == "." {
			return nil, fmt.Errorf("%q: give the zone's name, for example example.com (the root zone is not supported)", raw)
		}
		if _, ok := dns.IsDomainName(name); !ok {
			return nil, fmt.Errorf("%q is not a DNS name", raw)
		}
		name = dns.Fqdn(name)
		if !seen[name] {
			seen[name] = true
			z = append(z, name)
		}
	}
	if len(z) == 0 {
		return nil, errors.New("at least one zone is required")
	}
	sort.SliceStable(z, func(i, j int) bool { return dns.CountLabel(z[i]) > dns.CountLabel(z[j]) })
	return z, nil
}

// zoneOf returns the most specific zone that holds fqdn, on label boundaries ("www.notexample.com." is
// not in "example.com."), or "".
func (z zoneSet) zoneOf(fqdn string) string {
	for _, zone := range z {
		if dns.IsSubDomain(zone, fqdn) {
			return zone
		}
	}
	return ""
}

// isApex reports whether fqdn is one of the zones.
func (z zoneSet) isApex(fqdn string) bool {
	for _, zone := range z {
		if zone == fqdn {
			return true
		}
	}
	return false
}

func (z zoneSet) notInZones(name string) error {
	names := make([]string, len(z))
	for i, zone := range z {
		names[i] = strings.TrimSuffix(zone, ".")
	}
	return fmt.Errorf("%s is not in any zone of this provider (--rfc2136-zone: %s)", name, strings.Join(names, ", "))
}
