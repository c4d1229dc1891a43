package pdns

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// ApplyChanges implements provider.Provider. Creates and updates become REPLACE, deletes DELETE (the
// changetypes PowerDNS 4.1-4.9 all understand); UpdateOld is not needed, as external-dns. Each zone
// gets one PATCH with its deletes first, so that a type change at a name (delete A, create CNAME)
// passes PowerDNS's CNAME check. A change that fails validation, or that PowerDNS refuses (422), is
// reported in *provider.ApplyError while the others are applied. A network error or any other answer
// is returned as a plain error: REPLACE and DELETE are idempotent, so the controller's retry of the
// whole run is harmless even when some zones were already written.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil || len(changes.Create)+len(changes.UpdateNew)+len(changes.Delete) == 0 {
		return nil
	}
	p.opMu.Lock()
	defer p.opMu.Unlock()
	p.mu.Lock()
	p.probed, p.hasProbed = nil, false // our writes move serials: the probe's list is out of date
	p.mu.Unlock()
	zones, err := p.zones(ctx)
	if err != nil {
		return err
	}
	// A cached zone whose serial moved since it was read was changed behind our back: drop it, so that
	// the next probe reports it and the next listing reads it.
	for _, z := range zones {
		if _, ok := p.cached(z); !ok {
			p.forget(z.id)
		}
	}
	var rejected []provider.RejectedChange
	batches := map[string]*zoneBatch{}
	var order []string
	add := func(action provider.Action, ep *endpoint.Endpoint) {
		c, err := p.prepare(zones, action, ep)
		if err == nil {
			b := batches[c.zone.id]
			if b == nil {
				b = &zoneBatch{zone: c.zone, index: map[string]int{}}
				batches[c.zone.id] = b
				order = append(order, c.zone.id)
			}
			err = b.add(c)
			if err == nil && c.rrset.Type == endpoint.RecordTypeCNAME {
				// external-dns writes some CNAMEs as ALIAS and Records lists those as CNAME: replacing
				// or deleting the CNAME removes the ALIAS in the same PATCH (a no-op when there is
				// none), else PowerDNS would refuse the CNAME beside it.
				err = b.add(aliasDelete(c))
			}
		}
		if err != nil {
			rejected = append(rejected, provider.RejectedChange{Action: action, Endpoint: ep, Err: err})
		}
	}
	for _, ep := range changes.Delete {
		add(provider.ActionDelete, ep)
	}
	for _, ep := range changes.Create {
		add(provider.ActionCreate, ep)
	}
	for _, ep := range changes.UpdateNew {
		add(provider.ActionUpdate, ep)
	}
	for _, id := range order {
		b := batches[id]
		var refused []provider.RejectedChange
		for _, chunk := range p.chunks(b.ordered()) {
			r, err := p.send(ctx, b.zone, chunk)
			if err != nil {
				// What was applied is unknown: read the written zones again next time.
				p.forget(order...)
				return err
			}
			refused = append(refused, r...)
		}
		if len(refused) > 0 {
			// Part of the zone's changes applied: read it again rather than track which.
			p.forget(id)
		} else {
			p.writeThrough(id, b.units)
		}
		rejected = append(rejected, refused...)
	}
	if len(order) > 0 {
		p.serialsAfterWrite(ctx, zones, order)
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

// aliasDelete is the DELETE of the ALIAS rrset at a CNAME change's name, reported as that change.
func aliasDelete(c change) change {
	c.rrset = rrset{Name: c.rrset.Name, Type: typeALIAS, ChangeType: changeDelete}
	return c
}

// unit is one rrset of a PATCH and the changes that asked for it (several when a delete and a create
// of the same name and type meet in one call).
type unit struct {
	rrset   rrset
	changes []change
}

// zoneBatch collects the units of one zone, one per (name, type): PowerDNS refuses a PATCH that
// names an rrset twice with the same changetype.
type zoneBatch struct {
	zone  zone
	units []*unit
	index map[string]int
}

func (b *zoneBatch) add(c change) error {
	key := c.rrset.Name + " " + c.rrset.Type
	i, ok := b.index[key]
	if !ok {
		b.index[key] = len(b.units)
		b.units = append(b.units, &unit{rrset: c.rrset, changes: []change{c}})
		return nil
	}
	u := b.units[i]
	switch {
	case c.rrset.ChangeType == changeDelete:
		// A REPLACE already sets the final content; a second DELETE adds nothing.
	case u.rrset.ChangeType == changeDelete:
		u.rrset = c.rrset // delete then write: the write is the final state
	default:
		return fmt.Errorf("another change in the same call also writes %s %s", strings.TrimSuffix(c.rrset.Name, "."), c.rrset.Type)
	}
	u.changes = append(u.changes, c)
	return nil
}

// ordered returns the units with every DELETE before every REPLACE, otherwise in call order.
func (b *zoneBatch) ordered() []*unit {
	out := make([]*unit, 0, len(b.units))
	for _, ct := range []string{changeDelete, changeReplace} {
		for _, u := range b.units {
			if u.rrset.ChangeType == ct {
				out = append(out, u)
			}
		}
	}
	return out
}

// chunks splits units into PATCH bodies of at most maxPatch bytes (nearly always just one).
func (p *Provider) chunks(units []*unit) [][]*unit {
	var out [][]*unit
	var cur []*unit
	size := 0
	for _, u := range units {
		b, _ := json.Marshal(u.rrset)
		if len(cur) > 0 && size+len(b)+1 > p.maxPatch {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, u)
		size += len(b) + 1
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// patch sends one PATCH with the units' rrsets.
func (p *Provider) patch(ctx context.Context, z zone, units []*unit) error {
	body := patchBody{RRsets: make([]rrset, len(units))}
	for i, u := range units {
		body.RRsets[i] = u.rrset
	}
	return p.api.do(ctx, "PATCH", p.api.zonePath(z.id), body, nil)
}

// serialsAfterWrite reads the zone list once more after the PATCHes and keeps each written zone's new
// serial, so that our own writes are not taken for drift. A write made by someone else between our
// PATCH and this read is missed by the probe (milliseconds; the relisting period catches it). When the
// list cannot be read, the written zones are dropped from the cache instead.
func (p *Provider) serialsAfterWrite(ctx context.Context, before []zone, written []string) {
	p.mu.Lock()
	empty := p.cache == nil
	p.mu.Unlock()
	if empty {
		return
	}
	after, err := p.zones(ctx)
	if err != nil {
		p.forget(written...)
		return
	}
	serialOf := func(zs []zone, id string) (int64, bool) {
		for _, z := range zs {
			if z.id == id {
				return z.serial, true
			}
		}
		return 0, false
	}
	for _, id := range written {
		was, ok1 := serialOf(before, id)
		now, ok2 := serialOf(after, id)
		if !ok1 || !ok2 {
			p.forget(id)
			continue
		}
		p.afterWrite(id, was, now)
	}
}
