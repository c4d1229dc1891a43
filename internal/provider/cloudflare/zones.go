package cloudflare

import (
	"context"
	"fmt"
	"strings"

	"github.com/cloudflare/cloudflare-go/v7/packages/pagination"
	"github.com/cloudflare/cloudflare-go/v7/zones"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// zone is a managed zone: its id, its name (lower case, no trailing dot), and whether its plan is a
// paid one (longer record comments).
type zone struct {
	id, name string
	paid     bool
}

// maxComment is the longest record comment the zone's plan allows.
func (z zone) maxComment() int {
	if z.paid {
		return 500
	}
	return 100
}

// domainFilter holds --domain-filter, normalised; empty means every name.
type domainFilter []string

func newDomainFilter(domains []string) domainFilter {
	var f domainFilter
	for _, d := range domains {
		if d = strings.ToLower(strings.Trim(strings.TrimSpace(d), ".")); d != "" {
			f = append(f, d)
		}
	}
	return f
}

// allows reports whether a name is inside the filter.
func (f domainFilter) allows(name string) bool {
	if len(f) == 0 {
		return true
	}
	for _, d := range f {
		if endpoint.InDomain(name, d) {
			return true
		}
	}
	return false
}

// managesZone reports whether a zone is managed: it lies inside the filter, or a filtered domain lies
// inside it (--domain-filter=sub.example.com manages that part of zone example.com).
func (f domainFilter) managesZone(name string) bool {
	if f.allows(name) {
		return true
	}
	for _, d := range f {
		if endpoint.InDomain(d, name) {
			return true
		}
	}
	return false
}

// listZones lists the managed zones: those --zone-id-filter names (one GET each, as external-dns),
// else every zone of the account that --domain-filter manages.
func (p *Provider) listZones(ctx context.Context) ([]zone, error) {
	var out []zone
	if ids := nonEmpty(p.cfg.ZoneIDFilter); len(ids) > 0 {
		for _, id := range ids {
			var params zones.ZoneGetParams
			params.ZoneID.Value, params.ZoneID.Present = id, true
			z, err := p.client.Zones.Get(ctx, params)
			if err != nil {
				return nil, fmt.Errorf("--zone-id-filter=%s: %w", id, describeError(err))
			}
			out = append(out, zoneOf(*z))
		}
		p.nameZones(out)
		return out, nil
	}
	err := eachPage(ctx, zonesPerPage, func(ctx context.Context, page int) (*pagination.V4PagePaginationArray[zones.Zone], error) {
		var params zones.ZoneListParams
		params.PerPage.Value, params.PerPage.Present = zonesPerPage, true
		params.Page.Value, params.Page.Present = float64(page), true
		return p.client.Zones.List(ctx, params)
	}, func(zz zones.Zone) {
		if z := zoneOf(zz); p.filter.managesZone(z.name) {
			out = append(out, z)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("listing zones: %w", describeError(err))
	}
	p.nameZones(out)
	return out, nil
}

// nameZones tells the account's metrics the zones' names (the API's paths carry their ids).
func (p *Provider) nameZones(zs []zone) {
	for _, z := range zs {
		p.account.nameZone(z.id, z.name)
	}
}

func zoneOf(z zones.Zone) zone {
	//nolint:staticcheck // Plan.IsSubscribed is deprecated without a replacement; external-dns reads it too.
	return zone{id: z.ID, name: strings.ToLower(strings.TrimSuffix(z.Name, ".")), paid: z.Plan.IsSubscribed}
}

func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// zoneFor returns the managed zone a name belongs to: the longest zone it lies within.
func zoneFor(zs []zone, name string) (zone, bool) {
	var best zone
	found := false
	for _, z := range zs {
		if endpoint.InDomain(name, z.name) && (!found || len(z.name) > len(best.name)) {
			best, found = z, true
		}
	}
	return best, found
}

// notInZones is the error for a name that no managed zone holds.
func (p *Provider) notInZones(name string, zs []zone) error {
	if !p.filter.allows(name) {
		return fmt.Errorf("%s is outside --domain-filter %s", name, strings.Join(p.filter, ","))
	}
	names := make([]string, len(zs))
	for i, z := range zs {
		names[i] = z.name
	}
	if len(names) == 0 {
		return fmt.Errorf("%s is in no zone: the Cloudflare account has no zone the provider manages (zones are created in Cloudflare first)", name)
	}
	return fmt.Errorf("%s is in none of the managed Cloudflare zones (%s)", name, strings.Join(names, ", "))
}
