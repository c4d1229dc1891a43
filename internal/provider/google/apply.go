package google

import (
	"context"
	"errors"
	"fmt"
	"slices"

	dns "google.golang.org/api/dns/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// change is one planned change of a record set.
type change struct {
	action provider.Action
	ep     *endpoint.Endpoint
}

// item is what the changes ask of one record set: want is the set to hold, nil for none. The
// deletion that goes with it is read from the zone's sets when the change is sent, so a change
// replanned on a fresh listing deletes exactly what is there.
type item struct {
	key     setKey
	want    *dns.ResourceRecordSet
	changes []int // indexes into the changes, for reporting a refusal
}

// ApplyChanges implements provider.Provider. Each change becomes an item per record set against the
// sets as last listed or written: an update or create replaces the set (deletion of the stored set
// and addition of the new one in one Change), a delete removes it. Items are sent per zone in Changes
// of at most --google-batch-change-size additions plus deletions, the items of one name always in
// the same Change (a type replaced at a name is deleted and added atomically). A change that cannot
// be written (a name in no managed zone) is rejected before anything is sent; see submit for what
// happens when Cloud DNS refuses a Change. Every rejection is in the returned *provider.ApplyError.
// Any other failure (the API unavailable, still throttling after maxThrottleWait) ends the zone's
// changes and is returned as such.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil || !changes.HasChanges() {
		return nil
	}
	zs, err := p.state(ctx)
	if err != nil {
		return err
	}
	list, rejected, byZone, zoneOf := p.itemsOf(zs, changes)
	names := make([]string, 0, len(byZone))
	for n := range byZone {
		names = append(names, n)
	}
	slices.Sort(names)
	var failures []error
	for _, n := range names {
		refused := func(it *item, err error) {
			for _, ci := range it.changes {
				if _, seen := rejected[ci]; !seen {
					rejected[ci] = err
				}
			}
		}
		if err := p.submitZone(ctx, zoneOf[n], byZone[n], refused); err != nil {
			failures = append(failures, fmt.Errorf("zone %s: %w", n, err))
		}
	}
	if len(failures) > 0 {
		return errors.Join(failures...)
	}
	if len(rejected) == 0 {
		return nil
	}
	ae := &provider.ApplyError{}
	for ci := range list {
		if err, ok := rejected[ci]; ok {
			ae.Rejected = append(ae.Rejected, provider.RejectedChange{Action: list[ci].action, Endpoint: list[ci].ep, Err: err})
		}
	}
	return ae
}

// itemsOf turns changes into items per zone (their zones by name in zoneOf), and the changes that
// cannot be written into rejections by index into list.
func (p *Provider) itemsOf(zs []zone, changes *plan.Changes) (list []change, rejected map[int]error, byZone map[string][]*item, zoneOf map[string]zone) {
	rejected = map[int]error{}
	byZone = map[string][]*item{}
	zoneOf = map[string]zone{}
	itemOf := map[string]map[setKey]*item{}
	want := func(a provider.Action, e *endpoint.Endpoint, rs *dns.ResourceRecordSet) {
		list = append(list, change{action: a, ep: e})
		ci := len(list) - 1
		z, ok := zoneFor(zs, normName(e.DNSName))
		if !ok {
			if a != provider.ActionDelete { // nothing to delete where no managed zone is
				rejected[ci] = p.notInZones(normName(e.DNSName), zs)
			}
			return
		}
		k := setKey{normName(e.DNSName), e.RecordType}
		if isZoneNS(z, k) {
			rejected[ci] = fmt.Errorf("the NS record set at the zone apex %s is the zone's own (Cloud DNS keeps it) and is not managed", z.dnsName)
			return
		}
		if itemOf[z.name] == nil {
			itemOf[z.name] = map[setKey]*item{}
			zoneOf[z.name] = z
		}
		// Several changes of one set (a delete and a create of it) merge: the last one's set is held.
		it := itemOf[z.name][k]
		if it == nil {
			it = &item{key: k}
			itemOf[z.name][k] = it
			byZone[z.name] = append(byZone[z.name], it)
		}
		it.want = rs
		it.changes = append(it.changes, ci)
	}
	for _, e := range changes.Delete {
		want(provider.ActionDelete, e, nil)
	}
	for _, e := range changes.UpdateNew {
		want(provider.ActionUpdate, e, recordSetOf(e))
	}
	for _, e := range changes.Create {
		want(provider.ActionCreate, e, recordSetOf(e))
	}
	return list, rejected, byZone, zoneOf
}

// EstimateCalls implements provider.CallEstimator (zonekeeper plan): the Changes ApplyChanges would
// send, packed per zone as it packs them (a set already as wanted costs nothing), without a call
// unless no zone is cached yet. A refused Change costs more (it is bisected); that is not foreseen.
func (p *Provider) EstimateCalls(ctx context.Context, changes *plan.Changes) (provider.CallEstimate, error) {
	var est provider.CallEstimate
	if changes == nil || !changes.HasChanges() {
		return est, nil
	}
	zs, err := p.state(ctx)
	if err != nil {
		return est, err
	}
	_, _, byZone, zoneOf := p.itemsOf(zs, changes)
	for n, items := range byZone {
		if b := len(p.batches(zoneOf[n], items)); b > 0 {
			est.Calls += b
			est.Zones++
		}
	}
	if est.Calls > 0 {
		est.Call = "changes.create"
	}
	return est, nil
}

var _ provider.CallEstimator = (*Provider)(nil)

// state returns the managed zones, listing them and their sets when nothing is known (the first call,
// or after Invalidate) or a zone was dropped by the probe.
func (p *Provider) state(ctx context.Context) ([]zone, error) {
	p.mu.Lock()
	zs, complete := p.zones, p.sets != nil
	for _, z := range zs {
		if _, ok := p.sets[z.name]; !ok {
			complete = false // dropped by the probe: list it first
		}
	}
	p.mu.Unlock()
	if complete {
		return zs, nil
	}
	if _, err := p.Records(ctx); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.zones, nil
}
