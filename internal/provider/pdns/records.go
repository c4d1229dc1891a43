package pdns

import (
	"context"
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Records implements provider.Provider: one endpoint per record set of the managed zones, names
// without the trailing dot, ALIAS listed as CNAME (as external-dns). SOA, the apex NS (the zone's own delegation, not ours to manage), types
// the provider does not handle, and disabled records are left out.
//
// The zone list (one GET, or the one CheckZones just read) gives every zone's SOA serial; a zone read
// before whose serial is unchanged is taken from the cache, the others are read (one GET each).
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	zones, err := p.listZones(ctx)
	if err != nil {
		return nil, err
	}
	p.keepOnly(zones)
	var out []*endpoint.Endpoint
	for _, z := range zones {
		rrsets, ok := p.cached(z)
		if !ok {
			var data zoneData
			if err := p.api.do(ctx, "GET", p.api.zonePath(z.id), nil, &data); err != nil {
				return nil, fmt.Errorf("reading zone %s: %w", z.name, err)
			}
			rrsets = p.store(z, data)
		}
		for _, rs := range rrsets {
			if e := p.endpointOf(zones, z, rs); e != nil {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// endpointOf maps one rrset of zone z to an endpoint, or nil when it is not listed. A name that
// belongs to a managed child zone (glue in the parent) is listed from the child only.
func (p *Provider) endpointOf(zones []zone, z zone, rs rrset) *endpoint.Endpoint {
	name := strings.ToLower(strings.TrimSuffix(rs.Name, "."))
	if rs.Type == typeALIAS {
		// As external-dns: an ALIAS is listed as the CNAME it stands for.
		rs.Type = endpoint.RecordTypeCNAME
	}
	if !p.supports(rs.Type) || !p.filter.allows(name) {
		return nil
	}
	if owner, ok := zoneFor(zones, name); !ok || owner.name != z.name {
		return nil
	}
	if rs.Type == endpoint.RecordTypeNS && name == z.name {
		return nil
	}
	var targets []string
	for _, r := range rs.Records {
		if r.Disabled {
			continue
		}
		t, err := fromContent(rs.Type, r.Content)
		if err != nil {
			// A value another tool wrote that cannot be read is left out, not guessed at; the rest of
			// the record set is still listed.
			continue
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		return nil
	}
	return endpoint.NewWithTTL(name, rs.Type, endpoint.TTL(rs.TTL), targets...)
}
