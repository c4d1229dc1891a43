package aws

import (
	"context"
	"crypto/sha256"
	"fmt"
	"reflect"
	"slices"
	"time"
)

// relistAll is CheckZones' paced full relisting (the safety net for in-place edits made outside
// zonekeeper, which the record set count does not show). It lists the zone list again (unless
// --aws-zones-cache-duration keeps it), then every zone of it, and compares each listing with the
// cached contents before replacing them: a zone that holds what is cached keeps its contents, the
// same object, so the listing version does not move and nothing downstream is rebuilt (issue 15: at
// an idle resync the TXT registry keeps its cache without calling Records). A zone that differs (a
// set added, removed, or changed in any field), that appeared or that was not cached replaces its
// contents and moves the version. It returns the names of those zones, of the zones that could not be
// listed (access denied, gone: remembered as unreadable, as load does) and of the zones gone from the
// zone list.
//
// Any other failure returns the error with no zone's contents replaced (the controller then
// relists everything). An Invalidate during the relisting leaves it unstored: the next Records lists.
// The caller holds opMu, so no ApplyChanges patches the cached contents meanwhile.
func (p *Provider) relistAll(ctx context.Context, zs []zone, zonesAt time.Time) ([]string, error) {
	p.mu.Lock()
	gen, version := p.gen, p.version
	p.mu.Unlock()
	appeared := map[string]bool{}
	var gone []string
	if d := p.cfg.ZonesCacheDuration; d <= 0 || p.now().Sub(zonesAt) >= d {
		var err error
		if zs, gone, _, err = p.refreshZoneList(ctx, zs, appeared); err != nil {
			return nil, err
		}
	}
	replaced := map[string]*zoneContents{}
	failed := map[string]error{}
	pages := map[string][][sha256.Size]byte{}
	for _, z := range zs {
		p.mu.Lock()
		old := p.contents[z.id]
		p.mu.Unlock()
		// The last relisting's pages describe old only while nothing moved the version since
		// (relist_pages.go); relists is guarded by opMu, which the caller holds.
		var last *relistedZone
		if r, ok := p.relists.zones[z.id]; ok && old != nil && r.version == version && r.sets == old.count() {
			last = &r
		}
		fresh, same, zonePages, err := p.relistZone(ctx, z, last)
		if err != nil {
			if !zoneUnreadable(err) {
				return nil, fmt.Errorf("aws: relisting: %w", err)
			}
			p.log.Warn("A hosted zone cannot be listed: it is left out of planning, its records are neither created nor deleted", "zoneName", z.name, "zoneID", z.id, "error", err.Error())
			failed[z.id] = err
			continue
		}
		if zonePages != nil {
			pages[z.id] = zonePages
		}
		// old is read without p.mu: only patch changes a zone's contents in place, and it runs under
		// opMu, which the caller holds.
		if same || (old != nil && old.sameSets(fresh)) {
			continue
		}
		if old != nil {
			p.log.Info("A hosted zone changed behind our back: found by the relisting", "zoneName", z.name, "zoneID", z.id)
		}
		replaced[z.id] = fresh
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen || p.contents == nil {
		return nil, nil // invalidated meanwhile: the next Records lists everything
	}
	if len(replaced) > 0 || len(failed) > 0 {
		p.changedLocked()
	}
	if p.unreadable == nil {
		p.unreadable = map[string]error{}
	}
	var stale []string
	for _, z := range zs {
		if c, ok := replaced[z.id]; ok {
			p.contents[z.id] = c
			delete(p.unreadable, z.id)
			stale = append(stale, z.name)
		} else if err, ok := failed[z.id]; ok {
			delete(p.contents, z.id)
			p.unreadable[z.id] = err
			stale = append(stale, z.name)
		}
	}
	p.listedAt = p.now()
	p.relists.remember(zs, p.contents, pages, p.version)
	return append(stale, gone...), nil
}

// sameSets reports whether c holds exactly the sets of other: the same keys, each with the same TTL,
// values (in order: Records gives the targets in that order) and other fields. The order of the
// entries does not matter (a patched cache appends new sets at the end and leaves holes where sets
// were removed; Route 53 lists in name order): every set of other is looked up in c by its key, and
// the counts being equal makes that a match of every set.
func (c *zoneContents) sameSets(other *zoneContents) bool {
	if c.count() != other.count() {
		return false
	}
	for i := range other.entries {
		e := &other.entries[i]
		if e.hole() {
			continue
		}
		s, ok := c.lookup(other.keyOf(e))
		if !ok || !s.same(e.set()) {
			return false
		}
	}
	return true
}

// same reports whether two stored sets of one key are the same record set.
func (s storedSet) same(o storedSet) bool {
	if s.ttl != o.ttl || !slices.Equal(s.values, o.values) || (s.rest == nil) != (o.rest == nil) {
		return false
	}
	// rest is set only on the sets with an alias, a routing policy, a health check or a name not in
	// the plain form: compared field by field (pointers followed), every field the SDK has included.
	return s.rest == nil || reflect.DeepEqual(*s.rest, *o.rest)
}
