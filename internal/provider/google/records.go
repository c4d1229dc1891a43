package google

import (
	"context"
	"fmt"
	"slices"
	"strings"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// setKey names a record set: its name (normName) and type.
type setKey struct{ name, typ string }

func keyOf(rs *dns.ResourceRecordSet) setKey { return setKey{normName(rs.Name), rs.Type} }

// Records implements provider.Provider: every record set of a supported type in the managed zones
// but the apex NS set (the zone's delegation, as the provider for PowerDNS leaves it out too),
// one list per zone (pages of the server's size), and remembers them for ApplyChanges.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	zs, err := p.listZones(ctx)
	if err != nil {
		return nil, err
	}
	sets := make(map[string]map[setKey]*dns.ResourceRecordSet, len(zs))
	var out []*endpoint.Endpoint
	for _, z := range zs {
		m, err := p.listSets(ctx, z)
		if err != nil {
			return nil, err
		}
		sets[z.name] = m
		for _, rs := range m {
			if isZoneNS(z, keyOf(rs)) {
				continue // the zone's own delegation, not a record to manage
			}
			if e := endpointOf(rs); e != nil {
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b *endpoint.Endpoint) int {
		return strings.Compare(a.DNSName+" "+a.RecordType, b.DNSName+" "+b.RecordType)
	})
	p.mu.Lock()
	p.zones, p.sets = zs, sets
	p.mu.Unlock()
	return out, nil
}

// isZoneNS reports whether k is the zone's apex NS set, which Cloud DNS made with the zone.
func isZoneNS(z zone, k setKey) bool { return k.typ == endpoint.RecordTypeNS && k.name == z.dnsName }

// listSets lists every record set of a zone.
func (p *Provider) listSets(ctx context.Context, z zone) (map[setKey]*dns.ResourceRecordSet, error) {
	m := map[setKey]*dns.ResourceRecordSet{}
	err := p.svc.ResourceRecordSets.List(p.project, z.name).Pages(ctx, func(res *dns.ResourceRecordSetsListResponse) error {
		for _, rs := range res.Rrsets {
			m[keyOf(rs)] = rs
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the record sets of zone %s: %w", z.name, describeError(err))
	}
	return m, nil
}

// endpointOf is the endpoint of a record set, nil for a type the provider does not manage. Domain
// names in the data lose their trailing dot, as the sources write them.
func endpointOf(rs *dns.ResourceRecordSet) *endpoint.Endpoint {
	if !slices.Contains(recordTypes, rs.Type) {
		return nil
	}
	targets := make([]string, len(rs.Rrdatas))
	for i, d := range rs.Rrdatas {
		targets[i] = d
		if hasDomainData(rs.Type) {
			targets[i] = strings.TrimSuffix(d, ".")
		}
	}
	return endpoint.NewWithTTL(normName(rs.Name), rs.Type, endpoint.TTL(rs.Ttl), targets...)
}

// recordSetOf is the record set that publishes e: the name and the domain names in the data fully
// qualified, TXT data as given (as external-dns sends it), DefaultTTL when e has none.
func recordSetOf(e *endpoint.Endpoint) *dns.ResourceRecordSet {
	rrdatas := make([]string, len(e.Targets))
	for i, t := range e.Targets {
		rrdatas[i] = t
		if hasDomainData(e.RecordType) && !strings.HasSuffix(t, ".") {
			rrdatas[i] = t + "."
		}
	}
	ttl := int64(DefaultTTL)
	if e.RecordTTL.IsConfigured() {
		ttl = int64(e.RecordTTL)
	}
	return &dns.ResourceRecordSet{Name: normName(e.DNSName) + ".", Type: e.RecordType, Ttl: ttl, Rrdatas: rrdatas}
}

// hasDomainData reports whether the type's data ends in a domain name.
func hasDomainData(typ string) bool {
	switch typ {
	case endpoint.RecordTypeCNAME, endpoint.RecordTypeNS, endpoint.RecordTypeMX, endpoint.RecordTypeSRV:
		return true
	}
	return false
}

// sameSet reports whether two record sets hold the same TTL and data (in any order).
func sameSet(a, b *dns.ResourceRecordSet) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Ttl != b.Ttl || len(a.Rrdatas) != len(b.Rrdatas) || keyOf(a) != keyOf(b) {
		return false
	}
	x, y := slices.Clone(a.Rrdatas), slices.Clone(b.Rrdatas)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
