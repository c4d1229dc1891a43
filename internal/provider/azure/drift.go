package azure

import (
	"context"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// MinRelistPeriod is the shortest default period of a zone's full relisting. The count probe sees a
// set added or deleted within one --interval; the relisting only finds in-place edits (and an add and
// a delete between two probes), so it need not run at every resync even where ARM's read rate would
// allow it for small zones. Ten minutes, as Google's and PowerDNS's.
const MinRelistPeriod = 10 * time.Minute

// listPageSize is the number of record sets per list page the relisting period is computed with:
// ARM's default $top for record sets is 100 (the emulator's default page too).
const listPageSize = 100

var _ provider.ZoneProber = (*Provider)(nil)

// CheckZones implements provider.ZoneProber with one zone listing of the resource group, which
// carries every zone's numberOfRecordSets (both APIs' swaggers: "the current number of record sets in
// this zone", auto-registered private sets included). A cached zone is dropped, to be listed by the
// next Records, when its count is not the cache's (a set added or deleted by someone else), when its
// listing is at least relist old (relist 0: the period at which relisting every cached zone uses
// pacing.IdleShare of the read rate, at least MinRelistPeriod), or when it is gone; a selected zone not
// cached (new, or dropped after a failed write) is reported too. Nothing is probed before the first
// listing. The next Records uses this zone list, so an idle resync costs this one call per account.
func (p *Provider) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	p.mu.Lock()
	empty := p.cache == nil
	pages := 0
	for _, c := range p.cache {
		pages += max(1, int((c.total+listPageSize-1)/listPageSize))
	}
	p.mu.Unlock()
	if empty {
		return nil, nil
	}
	if relist <= 0 {
		relist = max(pacing.RelistPeriod(pages, p.budget.read.Max()), MinRelistPeriod)
	}
	zones, err := p.listZones(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("probing the zones' record-set counts: %w", err)
	}
	now := p.cfg.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	var stale []string
	live := make(map[string]bool, len(zones))
	for _, z := range zones {
		live[z.name] = true
		c := p.cache[z.name]
		if c == nil || c.total != z.count || now.Sub(c.listedAt) >= relist {
			delete(p.cache, z.name)
			stale = append(stale, z.name)
		}
	}
	for name := range p.cache {
		if !live[name] {
			delete(p.cache, name)
			stale = append(stale, name)
		}
	}
	p.probed = zones
	return stale, nil
}
