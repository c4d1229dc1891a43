package pdns

import (
	"context"
	"sort"
	"time"
)

// zoneCache is one zone's rrsets as last read or written, with the SOA serial they go with.
type zoneCache struct {
	serial int64
	// followsAPI is false when the zone's serial does not move on API writes (SOA-EDIT-API unset, or
	// a write of ours left it as it was): its serial says nothing, so it is read at every call.
	followsAPI bool
	listedAt   time.Time
	rrsets     []rrset
}

// cached returns a zone's cached rrsets when they can stand for the zone: it was read before, its
// serial moves on API writes and it is still the serial the zone list gave.
func (p *Provider) cached(z zone) ([]rrset, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cache[z.id]
	if c == nil || !c.followsAPI || c.serial != z.serial {
		return nil, false
	}
	return c.rrsets, true
}

// store keeps a zone as just read and returns its rrsets in the cache's order (by name and type, so
// that a read and a cached answer list alike).
func (p *Provider) store(z zone, data zoneData) []rrset {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cache == nil {
		p.cache = map[string]*zoneCache{}
	}
	rs := append([]rrset(nil), data.RRsets...)
	sortRRsets(rs)
	p.cache[z.id] = &zoneCache{serial: data.Serial, followsAPI: data.SOAEditAPI != "", listedAt: p.now(), rrsets: rs}
	return rs
}

// forget drops zones from the cache, so that the next call reads them.
func (p *Provider) forget(ids ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, id := range ids {
		delete(p.cache, id)
	}
}

// keepOnly drops the cached zones that the zone list no longer has, and marks the cache as listed.
func (p *Provider) keepOnly(zones []zone) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cache == nil {
		// Listed, if with no zone yet: from now on the probe reports zones that appear.
		p.cache = map[string]*zoneCache{}
	}
	live := make(map[string]bool, len(zones))
	for _, z := range zones {
		live[z.id] = true
	}
	for id := range p.cache {
		if !live[id] {
			delete(p.cache, id)
		}
	}
}

// writeThrough applies the rrsets of a zone's accepted PATCHes to its cached copy (REPLACE sets the
// rrset, DELETE removes it), so that a write costs no reading. Nothing happens for a zone not cached.
func (p *Provider) writeThrough(id string, units []*unit) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.cache[id]
	if c == nil {
		return
	}
	byKey := make(map[string]rrset, len(c.rrsets))
	for _, rs := range c.rrsets {
		byKey[rs.Name+" "+rs.Type] = rs
	}
	for _, u := range units {
		key := u.rrset.Name + " " + u.rrset.Type
		if u.rrset.ChangeType == changeDelete {
			delete(byKey, key)
			continue
		}
		rs := u.rrset
		rs.ChangeType = ""
		byKey[key] = rs
	}
	out := make([]rrset, 0, len(byKey))
	for _, rs := range byKey {
		out = append(out, rs)
	}
	sortRRsets(out)
	c.rrsets = out
}

// afterWrite records a written zone's serial as read after our PATCHes. A serial that did not move
// (before is what the zone list gave before them) means the zone's serial does not follow API writes.
func (p *Provider) afterWrite(id string, before, after int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.cache[id]; c != nil {
		c.followsAPI = c.followsAPI && after != before
		c.serial = after
	}
}

// Invalidate drops every cached zone, so that the next call reads them all.
func (p *Provider) Invalidate() {
	p.mu.Lock()
	p.cache, p.probed, p.hasProbed = nil, nil, false
	p.mu.Unlock()
}

// listZones returns the zone list the last probe read, once, or else reads it.
func (p *Provider) listZones(ctx context.Context) ([]zone, error) {
	p.mu.Lock()
	zones, ok := p.probed, p.hasProbed
	p.probed, p.hasProbed = nil, false
	p.mu.Unlock()
	if ok {
		return zones, nil
	}
	return p.zones(ctx)
}

func sortRRsets(rs []rrset) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Name != rs[j].Name {
			return rs[i].Name < rs[j].Name
		}
		return rs[i].Type < rs[j].Type
	})
}
