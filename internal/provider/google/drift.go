package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// MinRelistPeriod is the shortest default period of the full relisting. Every write to a Cloud DNS
// zone's record sets is a Change, which the probe sees within one --interval; the relisting only finds
// what the probe cannot (a new zone in the project), so it need not run at every resync even where the
// 1 % rule would allow it (small zones), which would cost a probe baseline per zone on top.
const MinRelistPeriod = 10 * time.Minute

// assumedPageSize is the number of record sets per rrsets.list page the relisting period is computed
// with. Google documents no default ("the server decides"); 1,000 is the emulator's default page.
const assumedPageSize = 1000

var _ provider.ZoneProber = (*Provider)(nil)

// latestChange asks for a zone's latest Change (changes.list by change sequence, descending, one
// result): every write to a zone's record sets is a Change, so its id moves whenever the zone does.
func (p *Provider) latestChange(ctx context.Context, z zone) (string, error) {
	res, err := p.svc.Changes.List(p.project, z.name).SortBy("changeSequence").SortOrder("descending").MaxResults(1).Context(ctx).Do()
	if err != nil {
		return "", fmt.Errorf("reading the latest change of zone %s: %w", z.name, describeError(err))
	}
	if len(res.Changes) == 0 {
		return "", nil
	}
	return res.Changes[0].Id, nil
}

// CheckZones implements provider.ZoneProber. When the oldest listing is at least relist old (relist 0:
// the period at which a full listing uses 1 % of the project's rate, pacing.RelistPeriod, and at least
// MinRelistPeriod), every zone
// is dropped, as Invalidate does. Otherwise each cached zone costs one changes.list asking for its
// latest Change: a zone whose latest change id is not the one it was listed at (or the one of our own
// last Change) was changed behind our back — a set added, deleted or edited in place — and is dropped,
// to be listed by the next Records. Nothing is probed while nothing is cached. A new zone in the
// project is seen at the full relisting.
func (p *Provider) CheckZones(ctx context.Context, relist time.Duration) ([]string, error) {
	p.mu.Lock()
	if p.sets == nil {
		p.mu.Unlock()
		return nil, nil
	}
	zs := p.zones
	pages, oldest := 0, p.zonesListedAt
	for _, z := range zs {
		pages += (len(p.sets[z.name]) + assumedPageSize - 1) / assumedPageSize
		if at, ok := p.listedAt[z.name]; ok && (oldest.IsZero() || at.Before(oldest)) {
			oldest = at
		}
	}
	p.mu.Unlock()
	if relist <= 0 {
		relist = max(pacing.RelistPeriod(max(pages, 1), p.budget.max), MinRelistPeriod)
	}
	if !oldest.IsZero() && p.now().Sub(oldest) >= relist {
		p.Invalidate()
		names := make([]string, len(zs))
		for i, z := range zs {
			names[i] = z.name
		}
		return names, nil
	}
	var stale []string
	for _, z := range zs {
		p.mu.Lock()
		_, cached := p.sets[z.name]
		known := p.latest[z.name]
		p.mu.Unlock()
		if !cached {
			stale = append(stale, z.name)
			continue
		}
		id, err := p.latestChange(ctx, z)
		switch status := statusOf(err); {
		case err == nil:
		case status == http.StatusNotFound:
			// The zone is gone: the zone list is out of date, list everything again.
			p.Invalidate()
			names := make([]string, len(zs))
			for i, z := range zs {
				names[i] = z.name
			}
			return names, nil
		case status == http.StatusForbidden:
			// Without dns.changes.list (a role made for the three methods zonekeeper used to call)
			// the zone is listed at every resync, as before the probe existed.
			p.warnProbeDenied(z, err)
			p.mu.Lock()
			delete(p.sets, z.name)
			p.mu.Unlock()
			stale = append(stale, z.name)
			continue
		default:
			return stale, err
		}
		if id != known || id == "" {
			p.log.Info("A zone changed behind our back: listing it again", "zone", z.name, "latestChange", id, "known", known)
			p.mu.Lock()
			delete(p.sets, z.name)
			p.mu.Unlock()
			stale = append(stale, z.name)
		}
	}
	return stale, nil
}

// ownChange records the id Cloud DNS gave a Change of ours. Ids are the zone's change sequence; when
// ours follows the known latest directly, nobody else wrote in between and it becomes the known latest.
// Otherwise (someone else's Change came between, or the ids are not consecutive) the zone's latest is
// unknown, so the next probe lists it again: a write never hides another's.
func (p *Provider) ownChange(z zone, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.latest == nil {
		return
	}
	prev, err1 := strconv.ParseUint(p.latest[z.name], 10, 64)
	cur, err2 := strconv.ParseUint(id, 10, 64)
	if err1 == nil && err2 == nil && cur == prev+1 {
		p.latest[z.name] = id
		return
	}
	p.latest[z.name] = ""
}

// statusOf is the HTTP status of an API error, 0 for any other error.
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status
	}
	return 0
}

// warnProbeDenied logs once per zone that its probe is refused, naming the permission to grant.
func (p *Provider) warnProbeDenied(z zone, err error) {
	p.mu.Lock()
	first := !p.probeDenied[z.name]
	if p.probeDenied == nil {
		p.probeDenied = map[string]bool{}
	}
	p.probeDenied[z.name] = true
	p.mu.Unlock()
	if first {
		p.log.Warn("The zone cannot be probed: it is listed in full at every resync instead. Grant dns.changes.list on it to save those calls (docs/google.md)",
			"zone", z.name, "error", err.Error())
	}
}
