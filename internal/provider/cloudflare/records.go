package cloudflare

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/packages/pagination"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// stored is one Cloudflare record (one target of a record set) as listed or written.
type stored struct {
	id, name, typ, target string
	ttl                   int64
	attrs
}

// recKey finds a stored record by what identifies it in a record set.
type recKey struct{ name, typ, target string }

func keyOf(name, typ, target string) recKey {
	return recKey{strings.ToLower(strings.TrimSuffix(name, ".")), typ, canonicalTarget(typ, target)}
}

// canonicalTarget is the form targets are compared in: addresses parsed, host names in lower case
// without the final dot; TXT as it is.
func canonicalTarget(typ, t string) string {
	switch typ {
	case endpoint.RecordTypeTXT:
		return t
	case endpoint.RecordTypeA, endpoint.RecordTypeAAAA:
		if a, err := netip.ParseAddr(t); err == nil {
			return a.Unmap().String()
		}
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(t), "."))
}

// zoneIndex holds the records of one zone by key; a key holds several records only when the zone
// has duplicates.
type zoneIndex struct {
	byKey map[recKey][]stored
	byID  map[string]recKey
}

func newZoneIndex() *zoneIndex {
	return &zoneIndex{byKey: map[recKey][]stored{}, byID: map[string]recKey{}}
}

func (x *zoneIndex) add(s stored) {
	k := keyOf(s.name, s.typ, s.target)
	x.byKey[k] = append(x.byKey[k], s)
	x.byID[s.id] = k
}

func (x *zoneIndex) remove(id string) {
	k, ok := x.byID[id]
	if !ok {
		return
	}
	delete(x.byID, id)
	recs := slices.DeleteFunc(x.byKey[k], func(r stored) bool { return r.id == id })
	if len(recs) == 0 {
		delete(x.byKey, k)
	} else {
		x.byKey[k] = recs
	}
}

func (x *zoneIndex) find(k recKey) (stored, bool) {
	if recs := x.byKey[k]; len(recs) > 0 {
		return recs[0], true
	}
	return stored{}, false
}

// listRecords lists a zone's records of the supported types, inside --domain-filter, and counts
// every record the zone holds (any type, any name): the baseline of the zone probe (CheckZones).
func (p *Provider) listRecords(ctx context.Context, z zone) (*zoneIndex, int, error) {
	x := newZoneIndex()
	n := 0
	err := eachPage(ctx, p.cfg.RecordsPerPage, func(ctx context.Context, page int) (*pagination.V4PagePaginationArray[dns.RecordResponse], error) {
		var params dns.RecordListParams
		params.ZoneID.Value, params.ZoneID.Present = z.id, true
		params.PerPage.Value, params.PerPage.Present = float64(p.cfg.RecordsPerPage), true
		params.Page.Value, params.Page.Present = float64(page), true
		return p.client.DNS.Records.List(ctx, params)
	}, func(r dns.RecordResponse) {
		n++
		if s, ok := storedOf(r); ok && p.filter.allows(s.name) {
			x.add(s)
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("listing the records of zone %s: %w", z.name, describeError(err))
	}
	return x, n, nil
}

// storedOf reads a listed or written record; false for a type the provider does not manage.
func storedOf(r dns.RecordResponse) (stored, bool) {
	typ := string(r.Type)
	if !slices.Contains(recordTypes, typ) {
		return stored{}, false
	}
	s := stored{id: r.ID, name: strings.ToLower(strings.TrimSuffix(r.Name, ".")), typ: typ, target: r.Content,
		ttl: int64(r.TTL), attrs: attrs{proxied: r.Proxied, comment: r.Comment, tags: tagsOf(r.Tags)}}
	switch typ {
	case endpoint.RecordTypeMX:
		s.target = fmt.Sprintf("%d %s", int64(r.Priority), r.Content)
	case endpoint.RecordTypeSRV:
		if d, ok := r.Data.(dns.SRVRecordData); ok && d.Target != "" {
			s.target = fmt.Sprintf("%d %d %d %s", int64(d.Priority), int64(d.Weight), int64(d.Port), srvTargetFromAPI(d.Target))
		} else if r.Priority != 0 {
			s.target = strconv.FormatInt(int64(r.Priority), 10) + " " + r.Content
		}
	case endpoint.RecordTypeTLSA:
		// Cloudflare answers the digest in upper case; the endpoint's is lower case (as external-dns
		// v0.23 reads it back).
		s.target = tlsaTarget(r.Content)
	}
	return s, true
}

// tlsaTarget is a TLSA target with its digest in lower case and single spaces.
func tlsaTarget(t string) string {
	f := strings.Fields(t)
	if len(f) == 4 {
		f[3] = strings.ToLower(f[3])
	}
	return strings.Join(f, " ")
}

// srvTargetFromAPI gives an SRV target the final dot external-dns gives it.
func srvTargetFromAPI(t string) string {
	if t == "." || strings.HasSuffix(t, ".") {
		return t
	}
	return t + "."
}

func tagsOf(v any) []string {
	var out []string
	switch ts := v.(type) {
	case []string:
		out = append(out, ts...)
	case []any:
		for _, t := range ts {
			if s, ok := t.(string); ok {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Records implements provider.Provider: each record set is one endpoint (Cloudflare holds one
// record per target) with its cloudflare/proxied property, and its comment and tags when it has them,
// as external-dns lists them. A zone listed before and not dropped since (Invalidate, or CheckZones
// when its count moved or its listing is due) is served from what was listed and written; the zone
// list too.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	zs, cached := p.zones, p.index != nil
	p.mu.Unlock()
	var zonesAt time.Time
	if !cached {
		zonesAt = p.now()
		var err error
		if zs, err = p.listZones(ctx); err != nil {
			return nil, err
		}
	}
	index := map[string]*zoneIndex{}
	regional := map[string]map[string]string{}
	custom := map[string]map[string]customHostname{}
	counts, listedAt := map[string]int{}, map[string]time.Time{}
	var out []*endpoint.Endpoint
	for _, z := range zs {
		p.mu.Lock()
		x, ok := p.index[z.id]
		keys, hs := p.regionalByZone[z.id], p.customByZone[z.id]
		var eps []*endpoint.Endpoint
		if ok {
			eps = endpointsOf(x) // under the lock: writes update x in place
		}
		p.mu.Unlock()
		if !ok {
			var n int
			var err error
			if x, n, err = p.listRecords(ctx, z); err != nil {
				if cached {
					p.Invalidate() // the zone may be gone: list the zones again next time
				}
				return nil, err
			}
			counts[z.id], listedAt[z.id] = n, p.now()
			eps = endpointsOf(x)
			if p.regional() {
				if keys, err = p.listRegional(ctx, z); err != nil {
					return nil, err
				}
			}
			if p.cfg.CustomHostnames {
				if hs, err = p.listCustom(ctx, z); err != nil {
					return nil, err
				}
			}
		}
		index[z.id] = x
		if p.regional() {
			regional[z.id] = keys
			withRegionKeys(eps, keys)
		}
		if p.cfg.CustomHostnames {
			custom[z.id] = hs
			withCustomHostnames(eps, hs)
		}
		out = append(out, eps...)
	}
	p.mu.Lock()
	if p.counts == nil || !cached {
		p.counts, p.listedAt = map[string]int{}, map[string]time.Time{}
	}
	for id, n := range counts {
		p.counts[id], p.listedAt[id] = n, listedAt[id]
	}
	if !zonesAt.IsZero() {
		p.zonesListedAt = zonesAt
	}
	p.zones, p.index, p.regionalByZone, p.customByZone = zs, index, regional, custom
	p.mu.Unlock()
	endpoint.SortEndpoints(out)
	return out, nil
}

// endpointsOf groups a zone's records into record sets. The settings of a set are its first
// record's (by target), as external-dns takes them.
func endpointsOf(x *zoneIndex) []*endpoint.Endpoint {
	type setKey struct{ name, typ string }
	sets := map[setKey][]stored{}
	for _, recs := range x.byKey {
		for _, r := range recs {
			k := setKey{r.name, r.typ}
			sets[k] = append(sets[k], r)
		}
	}
	out := make([]*endpoint.Endpoint, 0, len(sets))
	for k, recs := range sets {
		slices.SortFunc(recs, func(a, b stored) int { return strings.Compare(a.target, b.target) })
		targets := make([]string, len(recs))
		for i, r := range recs {
			targets[i] = r.target
		}
		e := endpoint.NewWithTTL(k.name, k.typ, endpoint.TTL(recs[0].ttl), targets...)
		e.SetProviderSpecific(propProxied, strconv.FormatBool(recs[0].proxied))
		if recs[0].comment != "" {
			e.SetProviderSpecific(propComment, recs[0].comment)
		}
		if len(recs[0].tags) > 0 {
			e.SetProviderSpecific(propTags, strings.Join(recs[0].tags, ","))
		}
		out = append(out, e)
	}
	return out
}
