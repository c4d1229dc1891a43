package aws

// ListingVersion implements provider.ListingVersioner: the version of what Records would return,
// known only while Records would answer from the cache alone, without a call and without an
// *provider.UnreadableZonesError: the zone list is cached, every zone's contents are, and no zone
// failed its listing. A zone CheckZones dropped, a zone that appeared, an unreadable zone and an
// invalidated cache make it unknown until the next Records has listed them; the version changes with
// every change to the zone list or the contents (ApplyChanges' patch, a listing, a zone dropped,
// appeared or gone). CheckZones' paced relisting compares each zone's listing with the cached contents
// before replacing them (relistAll): a zone that holds what was cached keeps its contents and the
// version, one that differs in any set moves it. A listing after Invalidate or a dropped zone still
// moves it: the old contents are gone by then, and unknown or new is always safe.
func (p *Provider) ListingVersion() (version uint64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.versionLocked()
}

// versionLocked is ListingVersion for a caller that holds p.mu: Records reports it
// (provider.ReportListedVersion) with the endpoints it made of the cache under the same lock.
func (p *Provider) versionLocked() (version uint64, ok bool) {
	if p.zoneList == nil || p.contents == nil || len(p.unreadable) > 0 {
		return 0, false
	}
	for _, z := range p.zoneList {
		if p.contents[z.id] == nil {
			return 0, false
		}
	}
	return p.version, true
}

// changedLocked records that what cachedEndpoints makes of the cache may have changed. The caller
// holds p.mu.
func (p *Provider) changedLocked() { p.version++ }
