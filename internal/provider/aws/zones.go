package aws

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// zone is one managed hosted zone.
type zone struct {
	id      string // bare, without /hostedzone/
	name    string // normalised
	private bool
	api     *route53.Client // of the account that listed the zone
}

func (z zone) String() string { return fmt.Sprintf("%s (%s)", z.name, z.id) }

// zones returns the managed zones, from the cache unless it was invalidated.
func (p *Provider) zones(ctx context.Context) ([]zone, error) {
	p.mu.Lock()
	if p.zoneList != nil {
		zs := p.zoneList
		p.mu.Unlock()
		return zs, nil
	}
	gen := p.gen
	p.mu.Unlock()
	zs, totals, _, err := p.listZones(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.gen == gen {
		p.zoneList, p.zonesAt, p.accountZones = zs, p.now(), totals
		p.changedLocked()
	}
	p.mu.Unlock()
	return zs, nil
}

// listZones lists every account's hosted zones and keeps those the filters select: zone ids, zone
// type, domain filter, then tags (ListTagsForResources, 10 zones per call, only with --aws-zone-tags).
// A zone two profiles reach (one account, two roles) is kept once, with the first profile. One
// account that cannot be listed fails the listing: a plan over the other accounts' zones alone would
// be built on a partial view. Public zones come first, then private ones, each by name. totals is
// how many hosted zones each account holds, managed or not (what a probe by ListHostedZones costs);
// counts is every listed zone's ResourceRecordSetCount by zone id (-1 where Route 53 gives none).
func (p *Provider) listZones(ctx context.Context) (zs []zone, totals map[*route53.Client]int, counts map[string]int64, err error) {
	var out []zone
	seen := map[string]bool{}
	totals, counts = map[*route53.Client]int{}, map[string]int64{}
	p.mu.Lock()
	p.untagged = nil // filterByTags fills it again
	p.mu.Unlock()
	for _, a := range p.accounts {
		zs, total, err := p.listAccountZones(ctx, a, counts)
		if err != nil {
			if a.profile != "" {
				return nil, nil, nil, fmt.Errorf("profile %s: %w", a.profile, err)
			}
			return nil, nil, nil, err
		}
		totals[a.api] = total
		for _, z := range zs {
			if !seen[z.id] {
				seen[z.id] = true
				out = append(out, z)
			}
		}
	}
	sortZones(out)
	if len(out) == 0 {
		p.log.Warn("No hosted zones match the filters", "profiles", p.cfg.Profiles, "domainFilter", p.cfg.DomainFilter, "zoneIDFilter", p.cfg.ZoneIDFilter, "zoneType", p.cfg.ZoneType, "zoneTags", p.cfg.ZoneTags)
	}
	return out, totals, counts, nil
}

// listAccountZones lists one account's zones that the filters select, counts all of them, and puts
// each one's record set count into counts.
func (p *Provider) listAccountZones(ctx context.Context, a account, counts map[string]int64) (kept []zone, total int, err error) {
	all, err := listAccount(ctx, a.api)
	if err != nil {
		return nil, 0, fmt.Errorf("listing hosted zones: %w", err)
	}
	for id, n := range all.counts {
		counts[id] = n
	}
	out, err := p.selectZones(ctx, a.api, all.zones)
	return out, len(all.zones), err
}

// selectZones keeps the zones of one account that the filters select: zone ids, zone type, domain
// filter, then tags (ListTagsForResources, 10 zones per call, only with --aws-zone-tags and only
// when some zone passed the other filters).
func (p *Provider) selectZones(ctx context.Context, api *route53.Client, zs []zone) ([]zone, error) {
	var out []zone
	for _, z := range zs {
		if p.keepZone(z) {
			out = append(out, z)
		}
	}
	if len(p.cfg.ZoneTags) == 0 || len(out) == 0 {
		return out, nil
	}
	return p.filterByTags(ctx, api, out)
}

// accountListing is one account's ListHostedZones answer: every hosted zone it holds, managed or not.
type accountListing struct {
	api    *route53.Client
	zones  []zone
	counts map[string]int64 // ResourceRecordSetCount by bare zone id, -1 where Route 53 gives none
}

// listAccount walks an account's ListHostedZones pages (zoneListPageSize zones a page).
func listAccount(ctx context.Context, api *route53.Client) (accountListing, error) {
	all := accountListing{api: api, counts: map[string]int64{}}
	pages := route53.NewListHostedZonesPaginator(api, &route53.ListHostedZonesInput{MaxItems: ptr(int32(zoneListPageSize))})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return accountListing{}, err
		}
		for _, hz := range page.HostedZones {
			id := bareZoneID(deref(hz.Id))
			all.counts[id] = recordSetCount(hz)
			all.zones = append(all.zones, zone{id: id, name: normName(deref(hz.Name)), private: hz.Config != nil && hz.Config.PrivateZone, api: api})
		}
	}
	return all, nil
}

// sortZones puts public zones first, then private ones, each by name (then id).
func sortZones(zs []zone) {
	sort.Slice(zs, func(i, j int) bool {
		if zs[i].private != zs[j].private {
			return !zs[i].private
		}
		if zs[i].name != zs[j].name {
			return zs[i].name < zs[j].name
		}
		return zs[i].id < zs[j].id
	})
}

// keepZone applies the zone id, zone type and domain filters.
func (p *Provider) keepZone(z zone) bool {
	if len(p.cfg.ZoneIDFilter) > 0 {
		found := false
		for _, id := range p.cfg.ZoneIDFilter {
			if bareZoneID(strings.TrimSpace(id)) == z.id {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	switch p.cfg.ZoneType {
	case "public":
		if z.private {
			return false
		}
	case "private":
		if !z.private {
			return false
		}
	}
	if len(p.cfg.DomainFilter) == 0 {
		return true
	}
	for _, d := range p.cfg.DomainFilter {
		d = normName(strings.TrimPrefix(strings.TrimSpace(d), "."))
		if d == "" || inZone(z.name, d) || inZone(d, z.name) {
			return true
		}
	}
	return false
}

// filterByTags keeps the zones that carry every --aws-zone-tags tag.
func (p *Provider) filterByTags(ctx context.Context, api *route53.Client, zs []zone) ([]zone, error) {
	tags := map[string]map[string]string{}
	for i := 0; i < len(zs); i += 10 {
		ids := make([]string, 0, 10)
		for _, z := range zs[i:min(i+10, len(zs))] {
			ids = append(ids, z.id)
		}
		out, err := api.ListTagsForResources(ctx, &route53.ListTagsForResourcesInput{ResourceType: r53types.TagResourceTypeHostedzone, ResourceIds: ids})
		if err != nil {
			return nil, fmt.Errorf("listing hosted zone tags: %w", err)
		}
		for _, set := range out.ResourceTagSets {
			m := map[string]string{}
			for _, t := range set.Tags {
				m[deref(t.Key)] = deref(t.Value)
			}
			tags[bareZoneID(deref(set.ResourceId))] = m
		}
	}
	var kept []zone
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, z := range zs {
		if hasTags(tags[z.id], p.cfg.ZoneTags) {
			kept = append(kept, z)
		} else {
			if p.untagged == nil {
				p.untagged = map[string]bool{}
			}
			p.untagged[z.id] = true
		}
	}
	return kept, nil
}

func hasTags(have map[string]string, want []string) bool {
	for _, w := range want {
		k, v, withValue := strings.Cut(w, "=")
		got, ok := have[strings.TrimSpace(k)]
		if !ok || (withValue && got != strings.TrimSpace(v)) {
			return false
		}
	}
	return true
}

// zonesFor places a name as external-dns does: every matching private zone, plus the most specific
// matching public zone.
func zonesFor(name string, zs []zone) []zone {
	var out []zone
	var public *zone
	for i, z := range zs {
		if !inZone(name, z.name) {
			continue
		}
		if z.private {
			out = append(out, z)
		} else if public == nil || len(z.name) > len(public.name) {
			public = &zs[i]
		}
	}
	if public != nil {
		out = append([]zone{*public}, out...)
	}
	return out
}

// pinMatters reports whether aws/hosted-zone-id=pin changes where name goes: it does unless name goes
// into that one zone anyway. A pin to a zone the name cannot go into matters too: it is refused.
func pinMatters(name, pin string, zs []zone) bool {
	natural := zonesFor(name, zs)
	return !(len(natural) == 1 && natural[0].id == pin)
}

// placement returns the zones e goes into: zonesFor its name, narrowed to the zone aws/hosted-zone-id
// names (bare or with /hostedzone/). As external-dns v0.23 does, a pin to a zone that is not one of
// those is not written anywhere; the error names the annotation.
func placement(e *endpoint.Endpoint, zs []zone) ([]zone, error) {
	name := normName(e.DNSName)
	natural := zonesFor(name, zs)
	pin, ok := e.GetProviderSpecific(propHostedZoneID)
	if !ok {
		return natural, nil
	}
	pin = bareZoneID(strings.TrimSpace(pin))
	for _, z := range natural {
		if z.id == pin {
			return []zone{z}, nil
		}
	}
	for _, z := range zs {
		if z.id == pin {
			return nil, fmt.Errorf("aws-hosted-zone-id %q: %s cannot go into hosted zone %s; it goes into %s", pin, name, z, zoneList(natural))
		}
	}
	return nil, fmt.Errorf("aws-hosted-zone-id %q is not a hosted zone this provider manages (zones for %s: %s)", pin, name, zoneList(natural))
}

func zoneList(zs []zone) string {
	if len(zs) == 0 {
		return "none"
	}
	s := make([]string, len(zs))
	for i, z := range zs {
		s[i] = z.String()
	}
	return strings.Join(s, ", ")
}
