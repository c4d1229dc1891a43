package pdns

import (
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// zone is a managed PowerDNS zone: its API id and canonical name without the trailing dot.
type zone struct {
	id   string
	name string
	// serial is the SOA serial the zone list gave.
	serial int64
}

// domainFilter holds --domain-filter, normalised; empty means every name.
type domainFilter []string

func newDomainFilter(domains []string) domainFilter {
	var f domainFilter
	for _, d := range domains {
		d = strings.ToLower(strings.Trim(strings.TrimSpace(d), "."))
		if d != "" {
			f = append(f, d)
		}
	}
	return f
}

// within reports whether name is domain or below it, on a label boundary ("notexample.com" is not
// within "example.com").
func within(name, domain string) bool { return endpoint.InDomain(name, domain) }

// allows reports whether a name is inside the filter.
func (f domainFilter) allows(name string) bool {
	if len(f) == 0 {
		return true
	}
	for _, d := range f {
		if within(name, d) {
			return true
		}
	}
	return false
}

// managesZone reports whether a server zone is managed: it lies inside the filter, or a filtered
// domain lies inside it (a filter of sub.example.com manages that part of zone example.com).
func (f domainFilter) managesZone(name string) bool {
	if f.allows(name) {
		return true
	}
	for _, d := range f {
		if within(d, name) {
			return true
		}
	}
	return false
}

// managedZones keeps the server's zones that the filter manages.
func (f domainFilter) managedZones(all []zoneInfo) []zone {
	var out []zone
	for _, z := range all {
		name := strings.ToLower(strings.TrimSuffix(z.Name, "."))
		if name == "" || !f.managesZone(name) {
			continue
		}
		id := z.ID
		if id == "" {
			id = z.Name
		}
		out = append(out, zone{id: id, name: name, serial: z.Serial})
	}
	return out
}

// zoneFor returns the managed zone a name belongs to: the longest zone it lies within, so that a
// delegated child zone on the same server wins over its parent.
func zoneFor(zones []zone, name string) (zone, bool) {
	var best zone
	found := false
	for _, z := range zones {
		if within(name, z.name) && (!found || len(z.name) > len(best.name)) {
			best, found = z, true
		}
	}
	return best, found
}

// notInZones is the error for a name that no managed zone holds.
func notInZones(name string, zones []zone, f domainFilter) error {
	if !f.allows(name) {
		return fmt.Errorf("%s is outside --domain-filter %s", name, strings.Join(f, ","))
	}
	names := make([]string, len(zones))
	for i, z := range zones {
		names[i] = z.name
	}
	if len(names) == 0 {
		return fmt.Errorf("%s is in no zone: the PowerDNS server has no zone that the provider manages (zones must be created in PowerDNS first)", name)
	}
	return fmt.Errorf("%s is in none of the managed PowerDNS zones (%s); zones must be created in PowerDNS first", name, strings.Join(names, ", "))
}
