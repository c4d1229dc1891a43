package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// opKind is what a batch entry does; batches apply deletes, then puts, then posts.
type opKind int

const (
	opDelete opKind = iota
	opPut
	opPost
)

// op is one entry of a batch: one record of one change.
type op struct {
	kind opKind
	id   string // the record deleted or overwritten
	w    write  // what a put or post writes
	// change indexes the change the op belongs to, for reporting a refusal.
	change int
}

// change is one planned change of a record set.
type change struct {
	action provider.Action
	ep     *endpoint.Endpoint
	old    *endpoint.Endpoint // an update's current record set
}

// zoneOps are the ops of one zone, kept by kind in the order the batch endpoint applies them.
type zoneOps struct {
	zone                 zone
	deletes, puts, posts []op
}

func (z *zoneOps) all() []op {
	out := make([]op, 0, len(z.deletes)+len(z.puts)+len(z.posts))
	return append(append(append(out, z.deletes...), z.puts...), z.posts...)
}

// ApplyChanges implements provider.Provider. Each change becomes one op per target against the
// records as last listed or written: deletes, overwrites (only of records whose TTL, proxying,
// comment or tags differ) and creates, sent per zone through the batch endpoint in chunks of
// --batch-change-size. A change that cannot be written (a name in no managed zone, a bad property or
// target, a comment too long for the zone's plan) is rejected before anything is sent; a chunk the
// API refuses is bisected down to the refused records, which are rejected while the rest is applied.
// Every rejection is in the returned *provider.ApplyError. Any other failure (the API unavailable,
// still throttling after maxThrottleWait) ends the zone's changes and is returned as such.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil || !changes.HasChanges() {
		return nil
	}
	zs, index, err := p.state(ctx)
	if err != nil {
		return err
	}
	list, rejected, byZone := p.planRecords(changes, zs, index)

	regionalWants := map[string]map[string][]regionalChange{}
	if p.regional() {
		wantRegional := func(ci int, e *endpoint.Endpoint, key string) {
			z, ok := zoneFor(zs, e.DNSName)
			if !ok || !slices.Contains(regionalTypes, e.RecordType) {
				return
			}
			if regionalWants[z.id] == nil {
				regionalWants[z.id] = map[string][]regionalChange{}
			}
			regionalWants[z.id][e.DNSName] = append(regionalWants[z.id][e.DNSName], regionalChange{change: ci, key: key})
		}
		for ci, c := range list {
			key := ""
			if c.action != provider.ActionDelete {
				key, _ = c.ep.GetProviderSpecific(propRegionKey)
			}
			wantRegional(ci, c.ep, key)
		}
	}

	customWants := map[string][]customChange{}
	if p.cfg.CustomHostnames {
		for ci, c := range list {
			z, ok := zoneFor(zs, c.ep.DNSName)
			if cc, asks := customChangeOf(ci, c, c.old); ok && asks {
				customWants[z.id] = append(customWants[z.id], cc)
			}
		}
	}

	var failures []error
	for _, zo := range byZone {
		var ops []op
		for _, o := range zo.all() {
			if _, bad := rejected[o.change]; !bad {
				ops = append(ops, o)
			}
		}
		if err := p.submitZone(ctx, zo.zone, ops, func(o op, err error) {
			if _, seen := rejected[o.change]; !seen {
				rejected[o.change] = err
			}
		}); err != nil {
			failures = append(failures, fmt.Errorf("zone %s: %w", zo.zone.name, err))
			continue
		}
		if wants := regionalWants[zo.zone.id]; len(wants) > 0 {
			for name, ws := range wants {
				// A change whose records were refused does not move its regional hostname.
				ws = slices.DeleteFunc(ws, func(w regionalChange) bool { _, bad := rejected[w.change]; return bad })
				wants[name] = ws
			}
			if err := p.applyRegional(ctx, zo.zone, wants, func(ci int, err error) {
				if _, seen := rejected[ci]; !seen {
					rejected[ci] = err
				}
			}); err != nil {
				failures = append(failures, fmt.Errorf("zone %s: %w", zo.zone.name, err))
			}
		}
		// A change whose records were refused does not move its custom hostnames.
		ccs := slices.DeleteFunc(customWants[zo.zone.id], func(cc customChange) bool { _, bad := rejected[cc.change]; return bad })
		if err := p.applyCustom(ctx, zo.zone, ccs, func(ci int, err error) {
			if _, seen := rejected[ci]; !seen {
				rejected[ci] = err
			}
		}); err != nil {
			failures = append(failures, fmt.Errorf("zone %s: %w", zo.zone.name, err))
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

// planRecords turns the changes into ops per zone against the records as last listed or written (see
// ApplyChanges); rejected holds the changes that cannot be written, by index into list.
func (p *Provider) planRecords(changes *plan.Changes, zs []zone, index map[string]*zoneIndex) (list []change, rejected map[int]error, byZone map[string]*zoneOps) {
	rejected = map[int]error{}
	byZone = map[string]*zoneOps{}
	zoneOf := func(ci int, name string) (*zoneOps, bool) {
		z, ok := zoneFor(zs, name)
		if !ok {
			rejected[ci] = p.notInZones(name, zs)
			return nil, false
		}
		if byZone[z.id] == nil {
			byZone[z.id] = &zoneOps{zone: z}
		}
		return byZone[z.id], true
	}
	add := func(a provider.Action, e *endpoint.Endpoint) int {
		list = append(list, change{action: a, ep: e})
		return len(list) - 1
	}

	for _, e := range changes.Delete {
		ci := add(provider.ActionDelete, e)
		z, ok := zoneFor(zs, e.DNSName)
		if !ok {
			continue // no managed zone holds it: nothing to delete
		}
		zo, _ := zoneOf(ci, e.DNSName)
		x := index[z.id]
		if x == nil {
			continue
		}
		for _, t := range e.Targets {
			for _, s := range x.byKey[keyOf(e.DNSName, e.RecordType, t)] {
				zo.deletes = append(zo.deletes, op{kind: opDelete, id: s.id, change: ci})
			}
		}
	}
	for i, e := range changes.UpdateNew {
		ci := add(provider.ActionUpdate, e)
		var old *endpoint.Endpoint
		if i < len(changes.UpdateOld) {
			old = changes.UpdateOld[i]
		}
		list[ci].old = old
		p.planSet(ci, old, e, zoneOf, index, rejected)
	}
	for _, e := range changes.Create {
		ci := add(provider.ActionCreate, e)
		p.planSet(ci, nil, e, zoneOf, index, rejected)
	}
	return list, rejected, byZone
}

// EstimateCalls implements provider.CallEstimator: the batch requests the changes cost, packed as
// ApplyChanges packs them, per zone in chunks of --batch-change-size (a refused batch costs more: it
// is bisected; regional and custom hostnames cost their own calls on top). It lists only what is not
// cached.
func (p *Provider) EstimateCalls(ctx context.Context, changes *plan.Changes) (provider.CallEstimate, error) {
	est := provider.CallEstimate{Call: "dns_records.batch"}
	if changes == nil || !changes.HasChanges() {
		return est, nil
	}
	zs, index, err := p.state(ctx)
	if err != nil {
		return est, err
	}
	_, rejected, byZone := p.planRecords(changes, zs, index)
	for _, zo := range byZone {
		n := 0
		for _, o := range zo.all() {
			if _, bad := rejected[o.change]; !bad {
				n++
			}
		}
		if n > 0 {
			est.Calls += (n + p.cfg.BatchChangeSize - 1) / p.cfg.BatchChangeSize
			est.Zones++
		}
	}
	return est, nil
}

// planSet adds the ops that turn record set old (nil for a create) into e: a delete per target that
// goes, a post per target that comes, and a put per kept target whose settings differ. A target
// already stored (a create after a lost answer) is overwritten rather than created twice.
func (p *Provider) planSet(ci int, old, e *endpoint.Endpoint, zoneOf func(int, string) (*zoneOps, bool),
	index map[string]*zoneIndex, rejected map[int]error) {
	zo, ok := zoneOf(ci, e.DNSName)
	if !ok {
		return
	}
	a, err := attrsOf(e)
	if err == nil {
		err = checkTargets(e)
	}
	if err == nil && len(a.comment) > zo.zone.maxComment() {
		err = fmt.Errorf("cloudflare-record-comment is %d characters; the plan of zone %s allows %d", len(a.comment), zo.zone.name, zo.zone.maxComment())
	}
	if err != nil {
		rejected[ci] = err
		return
	}
	ttl := int64(e.RecordTTL)
	if a.proxied || !e.RecordTTL.IsConfigured() {
		ttl = autoTTL
	}
	x := index[zo.zone.id]
	if x == nil {
		x = newZoneIndex()
	}
	wanted := map[recKey]bool{}
	for _, t := range e.Targets {
		k := keyOf(e.DNSName, e.RecordType, t)
		wanted[k] = true
		w := write{name: k.name, typ: e.RecordType, target: t, ttl: ttl, attrs: a}
		if s, ok := x.find(k); ok {
			if !sameSettings(s, w) {
				zo.puts = append(zo.puts, op{kind: opPut, id: s.id, w: w, change: ci})
			}
			continue
		}
		zo.posts = append(zo.posts, op{kind: opPost, w: w, change: ci})
	}
	if old == nil {
		return
	}
	for _, t := range old.Targets {
		k := keyOf(old.DNSName, old.RecordType, t)
		if wanted[k] {
			continue
		}
		for _, s := range x.byKey[k] {
			zo.deletes = append(zo.deletes, op{kind: opDelete, id: s.id, change: ci})
		}
	}
}

// sameSettings reports whether a stored record already is what w writes.
func sameSettings(s stored, w write) bool {
	if s.ttl != w.ttl || s.proxied != w.proxied || s.comment != w.comment || len(s.tags) != len(w.tags) {
		return false
	}
	for i := range s.tags {
		if s.tags[i] != w.tags[i] {
			return false
		}
	}
	return true
}

// checkTargets checks that every target can be sent (MX and SRV are split into fields).
func checkTargets(e *endpoint.Endpoint) error {
	for _, t := range e.Targets {
		if _, err := contentOf(e.RecordType, t); err != nil {
			return err
		}
	}
	return nil
}

// state returns the managed zones and their records as last listed or written, listing them when
// nothing is known (the first call, or after Invalidate) or a zone was dropped (CheckZones).
func (p *Provider) state(ctx context.Context) ([]zone, map[string]*zoneIndex, error) {
	p.mu.Lock()
	zs, index := p.zones, p.index
	complete := index != nil
	for _, z := range zs {
		if _, ok := index[z.id]; !ok {
			complete = false // dropped by the zone probe: listed again first
		}
	}
	p.mu.Unlock()
	if complete {
		return zs, index, nil
	}
	if _, err := p.Records(ctx); err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.zones, p.index, nil
}
