package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

var (
	_ provider.ZoneProber    = (*Provider)(nil)
	_ provider.CallEstimator = (*Provider)(nil)
)

// CheckZones implements provider.ZoneProber. When the cache is at least relist old (relist 0: the
// period at which a full listing uses 1 % of the account's rate, pacing.RelistPeriod), every zone is
// listed again here and compared with the cache (relistAll): only the zones whose contents differ are
// replaced and named, so a relisting that finds what was cached keeps the listing version.
// Otherwise each cached zone is probed (probeAccount: one GetHostedZone, or one ListHostedZones page
// for up to 100 zones of an account): a zone whose ResourceRecordSetCount differs from the cached
// number of record sets was changed behind our back (a set added or deleted) and is dropped, to be
// listed by the next Records. An in-place edit keeps the count and waits for the full relisting. A zone that could not be listed is dropped too, so it is
// tried again (one attempt per call). Nothing is probed while nothing is cached.
func (p *Provider) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	p.mu.Lock()
	if p.contents == nil {
		p.mu.Unlock()
		return nil, nil
	}
	zs, zonesAt, listedAt, pages := p.zoneList, p.zonesAt, p.listedAt, p.cachedPagesLocked()
	p.mu.Unlock()
	if relist <= 0 {
		relist = pacing.RelistPeriod(pages, p.limiter.Max())
	}
	if p.now().Sub(listedAt) >= relist {
		return p.relistAll(ctx, zs, zonesAt)
	}
	staleSet := map[string]bool{}
	var gone []string
	var listed map[string]int64 // the counts of a zone list fetched just now: the probe's answer
	if d := p.cfg.ZonesCacheDuration; d > 0 && p.now().Sub(zonesAt) >= d {
		var err error
		if zs, gone, listed, err = p.refreshZoneList(ctx, zs, staleSet); err != nil {
			return nil, err
		}
	}
	byAccount := map[*route53.Client][]zone{}
	for _, z := range zs {
		if p.unreadableZone(z.id) != nil {
			p.dropZone(z.id)
			staleSet[z.id] = true
			continue
		}
		if staleSet[z.id] || !p.cached(z.id) {
			continue // listed by the next Records anyway
		}
		byAccount[z.api] = append(byAccount[z.api], z)
	}
	p.mu.Lock()
	totals := p.accountZones
	p.mu.Unlock()
	var answers []accountListing
	var err error
	for _, api := range p.accountsOf(zs) {
		var answer *accountListing
		if answer, err = p.probeAccount(ctx, api, byAccount[api], totals[api], listed, staleSet); err != nil {
			break
		}
		if answer != nil {
			answers = append(answers, *answer)
		}
	}
	if len(answers) > 0 {
		var left []string
		var ferr error
		zs, left, ferr = p.followZoneList(ctx, zs, answers, staleSet)
		gone = append(gone, left...)
		err = errors.Join(err, ferr)
	}
	var stale []string
	for _, z := range zs {
		if staleSet[z.id] {
			stale = append(stale, z.name)
		}
	}
	return append(stale, gone...), err
}

// refreshZoneList fetches the zone list again (--aws-zones-cache-duration has passed since the last
// one) and installs it. The zones that appeared are marked in stale (the next Records lists them,
// the zones already cached are kept); the names of those that went are returned, so that the caller
// folds the records again without them.
func (p *Provider) refreshZoneList(ctx context.Context, old []zone, stale map[string]bool) (fresh []zone, gone []string, counts map[string]int64, err error) {
	fresh, totals, counts, err := p.listZones(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("aws: %w", err)
	}
	p.mu.Lock()
	p.zonesAt, p.accountZones = p.now(), totals
	p.mu.Unlock()
	return fresh, p.installZoneList(old, fresh, stale), counts, nil
}

// followZoneList brings the zone list up to date with the ListHostedZones answers the probe got
// anyway (they name every zone of their account): a zone of the account missing from its answer is
// gone, a zone in it that is not in the list and that the filters select appeared. Without
// --aws-zone-tags this costs no call; with it, a zone that appeared and passes the other filters costs
// one ListTagsForResources per 10 such zones, once (filterByTags remembers the zones it left out).
// The zone list's age (--aws-zones-cache-duration) is not reset: the zones already listed are not
// selected again here.
func (p *Provider) followZoneList(ctx context.Context, old []zone, answers []accountListing, stale map[string]bool) (fresh []zone, gone []string, err error) {
	known := map[string]bool{}
	for _, z := range old {
		known[z.id] = true
	}
	fresh = slices.Clone(old)
	var errs []error
	for _, a := range answers {
		listed := map[string]bool{}
		var candidates []zone
		p.mu.Lock()
		for _, z := range a.zones {
			listed[z.id] = true
			if !known[z.id] && !p.untagged[z.id] {
				candidates = append(candidates, z)
			}
		}
		if p.accountZones != nil {
			p.accountZones[a.api] = len(a.zones)
		}
		p.mu.Unlock()
		fresh = slices.DeleteFunc(fresh, func(z zone) bool { return z.api == a.api && !listed[z.id] })
		added, err := p.selectZones(ctx, a.api, candidates)
		if err != nil {
			errs = append(errs, fmt.Errorf("aws: selecting the hosted zones that appeared: %w", err))
			continue
		}
		for _, z := range added {
			known[z.id] = true
			fresh = append(fresh, z)
		}
	}
	sortZones(fresh)
	return fresh, p.installZoneList(old, fresh, stale), errors.Join(errs...)
}

// installZoneList makes fresh the zone list. The zones that appeared are marked in stale (the next
// Records lists them, the zones already cached are kept); those that went are forgotten and their
// names returned, so that the caller folds the records again without them.
func (p *Provider) installZoneList(old, fresh []zone, stale map[string]bool) (gone []string) {
	p.mu.Lock()
	if !slices.Equal(p.zoneList, fresh) { // a probe's zone list installed again unchanged changes nothing
		p.changedLocked()
	}
	p.zoneList = fresh
	p.mu.Unlock()
	had := map[string]bool{}
	for _, z := range old {
		had[z.id] = true
	}
	has := map[string]bool{}
	for _, z := range fresh {
		has[z.id] = true
		if !had[z.id] {
			p.log.Info("A hosted zone appeared: listing it", "zoneName", z.name, "zoneID", z.id)
			stale[z.id] = true
		}
	}
	for _, z := range old {
		if !has[z.id] {
			p.log.Info("A hosted zone is gone from the zone list: its records are left out", "zoneName", z.name, "zoneID", z.id)
			p.dropZone(z.id)
			gone = append(gone, z.name)
		}
	}
	return gone
}

// accountsOf are the clients of the accounts of zs, in the order of zs.
func (p *Provider) accountsOf(zs []zone) []*route53.Client {
	var out []*route53.Client
	for _, z := range zs {
		if !slices.Contains(out, z.api) {
			out = append(out, z.api)
		}
	}
	return out
}

// probeAccount probes one account's cached zones and drops, adding them to stale, those changed
// behind our back. ListHostedZones gives every zone's ResourceRecordSetCount, 100 zones a page: when
// the account's zones (total, managed or not) fit in fewer pages than there are zones to probe, that
// listing is the probe (50 zones: one call instead of 50), and its answer is returned for
// followZoneList; otherwise each zone costs a GetHostedZone. counts, when not nil, are the counts of a
// zone listing made just now: no call is made.
func (p *Provider) probeAccount(ctx context.Context, api *route53.Client, zs []zone, total int, counts map[string]int64, stale map[string]bool) (*accountListing, error) {
	if len(zs) == 0 {
		return nil, nil
	}
	var answer *accountListing
	if counts == nil && total > 0 && (total+zoneListPageSize-1)/zoneListPageSize < len(zs) {
		all, err := listAccount(ctx, api)
		if err != nil {
			return nil, fmt.Errorf("aws: probing hosted zones: %w", err)
		}
		answer, counts = &all, all.counts
	}
	for _, z := range zs {
		var count int64
		if counts != nil {
			n, listed := counts[z.id]
			if !listed {
				continue // gone from the account (or from our access): followZoneList leaves it out
			}
			count = n
		} else {
			out, err := z.api.GetHostedZone(withZone(ctx, z), &route53.GetHostedZoneInput{Id: ptr(z.id)})
			if err != nil {
				if zoneUnreadable(err) {
					// Without route53:GetHostedZone (external-dns's policy lacks it) the zone is listed
					// at every resync, as before the probe existed; the listing says if it is gone.
					p.warnProbeDenied(z, err)
					p.dropZone(z.id)
					stale[z.id] = true
					continue
				}
				return nil, fmt.Errorf("aws: probing hosted zone %s: %w", z, err)
			}
			count = -1
			if out.HostedZone != nil && out.HostedZone.ResourceRecordSetCount != nil {
				count = *out.HostedZone.ResourceRecordSetCount
			}
		}
		p.mu.Lock()
		c := p.contents[z.id]
		changed := c != nil && int64(c.count()) != count
		p.mu.Unlock()
		if changed {
			p.log.Info("A hosted zone changed behind our back: listing it again", "zoneName", z.name, "zoneID", z.id, "recordSets", count)
			p.dropZone(z.id)
			stale[z.id] = true
		}
	}
	return answer, nil
}

// zoneListPageSize is the most hosted zones one ListHostedZones answers.
const zoneListPageSize = 100

// recordSetCount is a listed zone's ResourceRecordSetCount, -1 where Route 53 gives none.
func recordSetCount(hz r53types.HostedZone) int64 {
	if hz.ResourceRecordSetCount == nil {
		return -1
	}
	return *hz.ResourceRecordSetCount
}

// cached reports whether the zone's contents are in the cache.
func (p *Provider) cached(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.contents[id] != nil
}

// dropZone forgets one zone's contents (or its listing failure) so that the next load lists it.
func (p *Provider) dropZone(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.changedLocked()
	if p.contents != nil {
		delete(p.contents, id)
	}
	delete(p.unreadable, id)
}

// cachedPagesLocked is how many list pages a full listing of the cached zones costs.
func (p *Provider) cachedPagesLocked() int {
	pages := 0
	for _, c := range p.contents {
		pages += (c.count() + listPageSize - 1) / listPageSize
	}
	return pages
}

// EstimateCalls implements provider.CallEstimator: the ChangeResourceRecordSets the changes cost,
// packed as ApplyChanges packs them (a refused batch costs more: it is split). It lists only what is
// not cached yet.
func (p *Provider) EstimateCalls(ctx context.Context, changes *plan.Changes) (provider.CallEstimate, error) {
	est := provider.CallEstimate{Call: "ChangeResourceRecordSets"}
	if changes == nil || !changes.HasChanges() {
		return est, nil
	}
	p.opMu.Lock()
	defer p.opMu.Unlock()
	b, zs, err := p.build(ctx, changes)
	if err != nil {
		return est, err
	}
	for _, z := range zs {
		if units := b.perZone[z.id]; len(units) > 0 {
			est.Calls += len(p.pack(units, b.origins))
			est.Zones++
		}
	}
	return est, nil
}

// warnProbeDenied logs once per zone that its probe is refused, naming the IAM action to grant.
func (p *Provider) warnProbeDenied(z zone, err error) {
	p.mu.Lock()
	first := !p.probeDenied[z.id]
	if p.probeDenied == nil {
		p.probeDenied = map[string]bool{}
	}
	p.probeDenied[z.id] = true
	p.mu.Unlock()
	if first {
		p.log.Warn("The hosted zone cannot be probed: it is listed in full at every resync instead. Grant route53:GetHostedZone on it to save those calls (deploy/aws)",
			"zoneName", z.name, "zoneID", z.id, "error", err.Error())
	}
}
