package cloudflare

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/dns"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// probePageSize is the smallest page the DNS records list allows (per_page 5 to 5,000,000 in
// Cloudflare's API description): the probe reads only result_info.total_count.
const probePageSize = 5

var _ provider.ZoneProber = (*Provider)(nil)

// recordCount asks how many records a zone holds: one page of the smallest size, whose
// result_info.total_count counts every record of the zone.
func (p *Provider) recordCount(ctx context.Context, z zone) (int, error) {
	var params dns.RecordListParams
	params.ZoneID.Value, params.ZoneID.Present = z.id, true
	params.PerPage.Value, params.PerPage.Present = probePageSize, true
	params.Page.Value, params.Page.Present = 1, true
	res, err := p.client.DNS.Records.List(ctx, params)
	if err != nil {
		return 0, fmt.Errorf("counting the records of zone %s: %w", z.name, describeError(err))
	}
	f, ok := res.ResultInfo.JSON.ExtraFields["total_count"]
	if !ok {
		return 0, fmt.Errorf("counting the records of zone %s: the answer has no result_info.total_count", z.name)
	}
	n, err := strconv.ParseFloat(f.Raw(), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("counting the records of zone %s: result_info.total_count is %s, not a count", z.name, f.Raw())
	}
	return int(n), nil
}

// countOwn moves a zone's known record count by our own creates (+) and deletes (-), so that the
// probe does not take our writes for drift.
func (p *Provider) countOwn(z zone, delta int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.counts[z.id]; ok {
		p.counts[z.id] += delta
	}
}

// CheckZones implements provider.ZoneProber. When the oldest listing is at least relist old (relist 0:
// the period at which a full listing uses 1 % of the account's rate, pacing.RelistPeriod), every zone
// is dropped, as Invalidate does, without a probe. Otherwise each cached zone costs one
// dns_records.list of the smallest page, whose total_count is compared with the count of the zone's
// last listing moved by our own creates and deletes: a zone whose count moved (a record added or
// deleted behind our back) is dropped, to be listed by the next Records. An in-place edit leaves the
// count and is seen at the full relisting; so are a new zone in the account (the zone list's age counts
// too, so this holds where no zone is managed yet) and a change of a regional or custom hostname.
// Nothing is probed while nothing is cached.
func (p *Provider) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	p.mu.Lock()
	if p.index == nil {
		p.mu.Unlock()
		return nil, nil
	}
	zs := p.zones
	pages, oldest := max(1, (len(zs)+zonesPerPage-1)/zonesPerPage), p.zonesListedAt
	for _, z := range zs {
		pages += max(1, (p.counts[z.id]+p.cfg.RecordsPerPage-1)/p.cfg.RecordsPerPage)
		if at, ok := p.listedAt[z.id]; ok && (oldest.IsZero() || at.Before(oldest)) {
			oldest = at
		}
	}
	p.mu.Unlock()
	if relist <= 0 {
		relist = pacing.RelistPeriod(max(pages, 1), p.account.max)
	}
	all := func() []string {
		names := make([]string, len(zs))
		for i, z := range zs {
			names[i] = z.name
		}
		return names
	}
	if !oldest.IsZero() && p.now().Sub(oldest) >= relist {
		p.Invalidate()
		return all(), nil
	}
	var stale []string
	for _, z := range zs {
		p.mu.Lock()
		_, cached := p.index[z.id]
		known := p.counts[z.id]
		p.mu.Unlock()
		if !cached {
			stale = append(stale, z.name)
			continue
		}
		n, err := p.recordCount(ctx, z)
		if err != nil {
			if notFound(err) {
				// The zone is gone: the zone list is out of date, list everything again.
				p.Invalidate()
				return all(), nil
			}
			return stale, err
		}
		if n != known {
			p.log.Info("A zone changed behind our back: listing it again", "zone", z.name, "records", n, "known", known)
			p.mu.Lock()
			// A copy without the zone: an ApplyChanges may hold the map it was given.
			index := maps.Clone(p.index)
			delete(index, z.id)
			p.index = index
			p.mu.Unlock()
			stale = append(stale, z.name)
		}
	}
	return stale, nil
}

var _ provider.CallEstimator = (*Provider)(nil)
