package google

import (
	"context"
	"fmt"
	"slices"
	"strings"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// zone is a managed zone: its name (the API's handle), its DNS name (lower case, no trailing dot),
// its numeric id and its visibility.
type zone struct {
	name, dnsName, id, visibility string
}

// listZones lists the managed zones of the project: not peering or forwarding zones (they hold no
// records of their own), of --google-zone-visibility, inside --domain-filter, and named by
// --zone-id-filter.
func (p *Provider) listZones(ctx context.Context) ([]zone, error) {
	var out []zone
	err := p.svc.ManagedZones.List(p.project).Pages(ctx, func(res *dns.ManagedZonesListResponse) error {
		for _, mz := range res.ManagedZones {
			z := zone{name: mz.Name, dnsName: normName(mz.DnsName), id: fmt.Sprint(mz.Id), visibility: mz.Visibility}
			switch {
			case mz.PeeringConfig != nil, mz.ForwardingConfig != nil:
				p.log.Debug("Skipping a peering or forwarding zone", "zone", z.name, "dnsName", z.dnsName)
			case !p.managesZone(z):
				p.log.Debug("Zone not selected by the filters", "zone", z.name, "dnsName", z.dnsName, "visibility", z.visibility)
			default:
				out = append(out, z)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the zones of project %s: %w", p.project, describeError(err))
	}
	if len(out) == 0 {
		p.log.Warn("No zone of the project is selected by the filters", "project", p.project,
			"domainFilter", strings.Join(p.cfg.DomainFilter, ","), "visibility", p.cfg.ZoneVisibility)
	}
	return out, nil
}

// managesZone applies the filters as external-dns does: the zone's DNS name inside a --domain-filter
// domain (a filter with a leading dot matches any suffix), the visibility, and a --zone-id-filter that
// ends the zone's id or name.
func (p *Provider) managesZone(z zone) bool {
	if p.cfg.ZoneVisibility != "" && z.visibility != p.cfg.ZoneVisibility {
		return false
	}
	return p.inDomainFilter(z.dnsName) && zoneIDMatches(p.cfg.ZoneIDFilter, z)
}

// inDomainFilter reports whether a name lies inside --domain-filter (always without one).
func (p *Provider) inDomainFilter(name string) bool {
	given := false
	for _, f := range p.cfg.DomainFilter {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		given = true
		if strings.HasPrefix(f, ".") {
			if strings.HasSuffix(name, f) {
				return true
			}
			continue
		}
		if endpoint.InDomain(name, strings.TrimSuffix(f, ".")) {
			return true
		}
	}
	return !given
}

func zoneIDMatches(filter []string, z zone) bool {
	given := false
	for _, f := range filter {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		given = true
		if strings.HasSuffix(z.id, f) || strings.HasSuffix(z.name, f) {
			return true
		}
	}
	return !given
}

// zoneFor returns the managed zone a name belongs to: the longest zone it lies within (of two with
// the same DNS name, the first listed).
func zoneFor(zs []zone, name string) (zone, bool) {
	var best zone
	found := false
	for _, z := range zs {
		if endpoint.InDomain(name, z.dnsName) && (!found || len(z.dnsName) > len(best.dnsName)) {
			best, found = z, true
		}
	}
	return best, found
}

// notInZones is the error for a name that no managed zone holds.
func (p *Provider) notInZones(name string, zs []zone) error {
	if !p.inDomainFilter(name) {
		return fmt.Errorf("%s is outside --domain-filter %s", name, strings.Join(p.cfg.DomainFilter, ","))
	}
	names := make([]string, 0, len(zs))
	for _, z := range zs {
		names = append(names, z.dnsName+" ("+z.name+")")
	}
	slices.Sort(names)
	if len(names) == 0 {
		return fmt.Errorf("%s is in no zone: project %s has no zone the provider manages (zones are created in Cloud DNS first)", name, p.project)
	}
	return fmt.Errorf("%s is in none of the managed Cloud DNS zones of project %s: %s", name, p.project, strings.Join(names, ", "))
}

// normName is a DNS name as the provider keeps it: lower case, without the trailing dot.
func normName(n string) string { return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(n), ".")) }
