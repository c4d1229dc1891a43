package google

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// setKey names a record set: its name (normName) and type.
type setKey struct{ name, typ string }

func keyOf(rs *dns.ResourceRecordSet) setKey { return setKey{normName(rs.Name), rs.Type} }

// Records implements provider.Provider: every record set of a supported type in the managed zones
// but the apex NS set (the zone's delegation, as the provider for PowerDNS leaves it out too),
// one list per zone (pages of the server's size), and remembers them for ApplyChanges. A zone listed
// before and not dropped since (Invalidate, or CheckZones when it changed) is served from what was
// listed and written; the zone list too. Before listing a zone its latest Change id is read (one
// call), the baseline of the zone probe.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	zs, cached := p.zones, p.sets != nil
	p.mu.Unlock()
	var zonesListedAt time.Time
	if !cached {
		var err error
		if zs, err = p.listZones(ctx); err != nil {
			return nil, err
		}
		zonesListedAt = p.now()
	}
	sets := make(map[string]map[setKey]*dns.ResourceRecordSet, len(zs))
	latest, listedAt := map[string]string{}, map[string]time.Time{}
	var out []*endpoint.Endpoint
	for _, z := range zs {
		p.mu.Lock()
		m, ok := p.sets[z.name]
		p.mu.Unlock()
		if !ok {
			// The id first: a Change made while the zone is listed then shows at the next probe.
			id, err := p.latestChange(ctx, z)
			if err != nil {
				// Without dns.changes.list the zone cannot be probed; the probe fails and the
				// controller lists everything at every resync, as before the probe existed.
				p.log.Debug("Cannot read the zone's latest change", "zone", z.name, "error", err.Error())
			}
			if m, err = p.listSets(ctx, z); err != nil {
				if cached {
					p.Invalidate() // the zone may be gone: list the zones again next time
				}
				return nil, err
			}
			latest[z.name], listedAt[z.name] = id, p.now()
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
	if p.latest == nil || !cached {
		p.latest, p.listedAt = map[string]string{}, map[string]time.Time{}
	}
	for n, id := range latest {
		p.latest[n], p.listedAt[n] = id, listedAt[n]
	}
	p.zones, p.sets = zs, sets
	if !zonesListedAt.IsZero() {
		p.zonesListedAt = zonesListedAt
	}
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
