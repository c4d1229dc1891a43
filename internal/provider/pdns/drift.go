package pdns

import (
	"context"
	"fmt"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// RelistPeriod is how old a zone's cached rrsets may get before CheckZones reads the zone again though
// its serial did not move, when --provider-cache-time is unset. PowerDNS has no API rate limit, but
// every write through the API moves the serial (SOA-EDIT-API, set on zones the API creates), so the
// probe sees it; only edits that bypass the API and leave the serial (SQL in the backend, some pdnsutil
// commands) wait for this period.
const RelistPeriod = 10 * time.Minute

var _ provider.ZoneProber = (*Provider)(nil)

// CheckZones implements provider.ZoneProber with one GET of the zone list, which carries every zone's
// SOA serial. A cached zone is dropped, to be read by the next Records, when its serial moved (an
// rrset added, deleted or edited through the API by someone else), when its serial does not follow
// API writes (SOA-EDIT-API unset: read at every call, as before the probe), when it is at least relist
// old (relist 0: RelistPeriod), or when it is gone from the server; a managed zone not cached (new on
// the server, or dropped after a failed write) is reported too. Nothing is probed before the first
// listing. The next Records uses this zone list instead of reading it again, so an idle resync costs
// this one GET.
func (p *Provider) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	p.opMu.Lock()
	defer p.opMu.Unlock()
	p.mu.Lock()
	empty := p.cache == nil
	p.mu.Unlock()
	if empty {
		return nil, nil
	}
	if relist <= 0 {
		relist = RelistPeriod
	}
	zones, err := p.zones(ctx)
	if err != nil {
		return nil, fmt.Errorf("pdns: probing the zones' serials: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var stale []string
	live := make(map[string]bool, len(zones))
	for _, z := range zones {
		live[z.id] = true
		c := p.cache[z.id]
		if c == nil || !c.followsAPI || c.serial != z.serial || p.now().Sub(c.listedAt) >= relist {
			delete(p.cache, z.id)
			stale = append(stale, z.name)
		}
	}
	for id := range p.cache {
		if !live[id] {
			delete(p.cache, id)
			stale = append(stale, id)
		}
	}
	p.probed, p.hasProbed = zones, true
	return stale, nil
}
