package azure

import (
	"sort"
	"strings"
	"time"
)

// zoneCache is one zone's record sets as last listed or written, with the zone's record-set count as
// it stands after them (numberOfRecordSets counts every type, so total counts the sets of types the
// provider does not handle too) and when the zone was listed.
type zoneCache struct {
	sets     map[string]recordSet
	total    int64
	listedAt time.Time
}

func setKey(name, typ string) string { return strings.ToLower(name) + " " + strings.ToUpper(typ) }

func newZoneCache(sets []recordSet, total int64, at time.Time) *zoneCache {
	c := &zoneCache{sets: make(map[string]recordSet, len(sets)), total: total, listedAt: at}
	for _, rs := range sets {
		c.sets[setKey(rs.name, rs.typ)] = rs
	}
	return c
}

// list returns the sets by name and type, as the API lists them.
func (c *zoneCache) list() []recordSet {
	out := make([]recordSet, 0, len(c.sets))
	for _, rs := range c.sets {
		out = append(out, rs)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].typ < out[j].typ
	})
	return out
}

// keepOnly drops the cached zones the zone list no longer selects, and makes the cache.
func (p *Provider) keepOnly(zones []zoneRef) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cache == nil {
		p.cache = map[string]*zoneCache{}
	}
	live := make(map[string]bool, len(zones))
	for _, z := range zones {
		live[z.name] = true
	}
	for name := range p.cache {
		if !live[name] {
			delete(p.cache, name)
		}
	}
}

// wrote writes one answered write through to the zone's cache: a set put is there (and counted when
// it is new to the cache), a set deleted is gone (and uncounted when the cache had it). A failed
// write leaves the zone's state unknown, so the zone is dropped and listed again by the next Records.
func (p *Provider) wrote(zone string, rs recordSet, deleted bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cache[zone]
	if c == nil {
		return
	}
	if err != nil {
		delete(p.cache, zone)
		return
	}
	k := setKey(rs.name, rs.typ)
	_, had := c.sets[k]
	switch {
	case deleted && had:
		delete(c.sets, k)
		c.total--
	case !deleted:
		if !had {
			c.total++
		}
		c.sets[k] = rs
	}
}

// Invalidate drops the cached record sets, so the next Records lists every zone again (the zone
// list stays subject to --azure-zones-cache-duration).
func (p *Provider) Invalidate() {
	p.mu.Lock()
	p.cache, p.probed = nil, nil
	p.mu.Unlock()
}
