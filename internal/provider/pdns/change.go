package pdns

import (
	"errors"
	"fmt"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// change is one requested change, validated, with the zone it goes to and the rrset it becomes.
type change struct {
	action provider.Action
	ep     *endpoint.Endpoint // as the caller gave it, for reports
	zone   zone
	rrset  rrset
}

// prepare validates one change and builds its rrset. Deletes are checked only for name, zone and
// type, so that record sets other tools wrote can always be removed.
func (p *Provider) prepare(zones []zone, action provider.Action, ep *endpoint.Endpoint) (change, error) {
	c := change{action: action, ep: ep}
	if ep.SetIdentifier != "" {
		return c, errors.New("set identifiers are not supported by the pdns provider")
	}
	if !p.supports(ep.RecordType) {
		return c, fmt.Errorf("record type %q is not supported by the pdns provider", ep.RecordType)
	}
	name, err := endpoint.NormalizeDNSName(ep.DNSName)
	if err != nil {
		return c, fmt.Errorf("invalid name %q: %v", ep.DNSName, err)
	}
	z, ok := zoneFor(zones, name)
	if !ok || !p.filter.allows(name) {
		return c, notInZones(name, zones, p.filter)
	}
	c.zone = z
	c.rrset = rrset{Name: name + ".", Type: ep.RecordType}
	if action == provider.ActionDelete {
		c.rrset.ChangeType = changeDelete
		return c, nil
	}
	c.rrset.ChangeType = changeReplace
	if ep.RecordType == endpoint.RecordTypeCNAME && name == z.name {
		return c, fmt.Errorf("a CNAME at the zone apex %s is not allowed (the apex holds SOA and NS); external-dns writes a PowerDNS ALIAS here, zonekeeper does not: publish A/AAAA targets for the apex instead", name)
	}
	if ep.RecordType == endpoint.RecordTypeNS && name == z.name {
		return c, fmt.Errorf("the NS record set at the zone apex %s is the zone's own and is not managed", name)
	}
	if len(ep.Targets) == 0 {
		return c, errors.New("no targets")
	}
	if ep.RecordType == endpoint.RecordTypeCNAME && len(ep.Targets) > 1 {
		return c, fmt.Errorf("a CNAME has exactly one target, got %d", len(ep.Targets))
	}
	if ep.RecordTTL < 0 || ep.RecordTTL > endpoint.MaxTTL {
		return c, fmt.Errorf("TTL %d is outside 0..%d", ep.RecordTTL, endpoint.MaxTTL)
	}
	c.rrset.TTL = ttlOf(ep)
	seen := make(map[string]bool, len(ep.Targets))
	for i, t := range ep.Targets {
		content, err := toContent(ep.RecordType, t)
		if err != nil {
			return c, fmt.Errorf("targets[%d] %q: %v", i, t, err)
		}
		// PowerDNS refuses a record set with the same content twice (422 "Duplicate record").
		if seen[content] {
			continue
		}
		seen[content] = true
		c.rrset.Records = append(c.rrset.Records, record{Content: content})
	}
	return c, nil
}
