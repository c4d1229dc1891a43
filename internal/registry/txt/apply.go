package txt

import (
	"cmp"
	"strings"

	"context"
	"errors"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// ApplyChanges implements registry.Registry. It drops updates and deletes of records this owner does not
// hold (the plan should already have; this is the last line of defence), stamps the owner on creates
// and updates, and sends each record change together with its TXT change in one provider call. The
// caller's endpoints are not modified.
//
// When the provider rejects some changes (*provider.ApplyError), only the accepted ones are patched
// into the cache, and the returned *provider.ApplyError names the caller's record endpoints: a rejected
// TXT is reported against the record it guards. Any other provider error invalidates the cache.
func (r *Registry) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if !changes.HasChanges() {
		return nil
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return errors.New("txt registry: UpdateOld and UpdateNew differ in length")
	}
	r.opMu.Lock()
	defer r.opMu.Unlock()
	s, err := r.current(ctx)
	if err != nil {
		return err
	}
	b := &batch{r: r, s: s, txtSeen: map[endpoint.Key]bool{}}
	r.mu.RLock()
	err = b.build(changes)
	r.mu.RUnlock()
	if err != nil {
		return err
	}
	b.withdrawSameAsListed(ctx)
	if len(b.sent) == 0 {
		return nil
	}
	tied := r.tiedBeforeWrite(s)
	err = r.provider.ApplyChanges(ctx, b.changes())
	if err == nil {
		exact := r.patch(s, b.sent)
		r.retieAfterWrite(s, tied && exact, b.sent)
		return nil
	}
	ae, ok := provider.AsApplyError(err)
	if !ok {
		r.Invalidate()
		return err
	}
	unmatched := b.markRejected(ae)
	if len(unmatched) > 0 {
		// The provider named changes we did not send; we cannot tell what it did.
		r.Invalidate()
	} else {
		exact := r.patch(s, b.sent)
		r.retieAfterWrite(s, tied && exact, b.sent)
	}
	return b.rejectedError(unmatched)
}

// origin is one record change as the caller asked for it; errors name its endpoint.
type origin struct {
	action provider.Action
	ep     *endpoint.Endpoint
}

// sentChange is one change handed to the provider, record or TXT.
type sentChange struct {
	action   provider.Action
	ep       *endpoint.Endpoint // the record set written or deleted (UpdateNew for an update)
	old      *endpoint.Endpoint // UpdateOld, for an update
	origin   int                // index into batch.origins
	txt      bool
	rejected error
}

// batch builds the provider call for one ApplyChanges.
type batch struct {
	r       *Registry
	s       *state
	origins []origin
	sent    []*sentChange
	txtSeen map[endpoint.Key]bool // one TXT change per name, even if two records map to it
	// propsOnly are the TXT updates sent only because the TXT's properties differ from the record's;
	// withdrawSameAsListed drops those the provider would list the same.
	propsOnly []*sentChange
}

func (b *batch) build(c *plan.Changes) error {
	for _, e := range c.Delete {
		if !b.ownedByUs(e) {
			continue
		}
		rec := prepare(e, "")
		o := b.addOrigin(provider.ActionDelete, e)
		b.send(&sentChange{action: provider.ActionDelete, ep: rec, origin: o})
		b.deleteTXT(rec, o)
	}
	for i, nu := range c.UpdateNew {
		old := c.UpdateOld[i]
		if !b.ownedByUs(old) {
			continue
		}
		oldRec, newRec := prepare(old, ""), prepare(nu, b.r.ownerID)
		o := b.addOrigin(provider.ActionUpdate, nu)
		b.send(&sentChange{action: provider.ActionUpdate, ep: newRec, old: oldRec, origin: o})
		if b.txtKey(oldRec) != b.txtKey(newRec) {
			b.deleteTXT(oldRec, o)
		}
		if err := b.ensureTXT(newRec, o); err != nil {
			return err
		}
	}
	for _, e := range c.Create {
		rec := prepare(e, b.r.ownerID)
		o := b.addOrigin(provider.ActionCreate, e)
		b.send(&sentChange{action: provider.ActionCreate, ep: rec, origin: o})
		if err := b.ensureTXT(rec, o); err != nil {
			return err
		}
	}
	return nil
}

// ensureTXT makes the new-format TXT of rec say what rec's labels say: create it when absent, rewrite it
// when it is ours but different, and leave it alone when it already matches or belongs to someone else
// (or is an ordinary TXT that happens to sit at that name).
func (b *batch) ensureTXT(rec *endpoint.Endpoint, o int) error {
	k := b.txtKey(rec)
	if b.txtSeen[k] {
		return nil
	}
	prev := b.s.entry(k)
	propsOnly := false
	if prev != nil {
		if prev.own == nil || !b.ours(prev.own) {
			return nil
		}
		if b.r.codec.sameAs(rec.Labels, prev.own) {
			if endpoint.SameProviderSpecific(prev.listedProviderSpecific(), rec.ProviderSpecific) {
				return nil
			}
			propsOnly = true
		}
	}
	var prevOwn *ownership
	if prev != nil {
		prevOwn = prev.own
	}
	txt, err := b.txtFor(rec, prevOwn)
	if err != nil {
		return err
	}
	b.txtSeen[k] = true
	if prev == nil {
		b.send(&sentChange{action: provider.ActionCreate, ep: txt, origin: o, txt: true})
		return nil
	}
	c := &sentChange{action: provider.ActionUpdate, ep: txt, old: prev.listedCopy(), origin: o, txt: true}
	b.send(c)
	if propsOnly {
		b.propsOnly = append(b.propsOnly, c)
	}
	return nil
}

// withdrawSameAsListed drops the TXT updates whose only difference from the stored TXT is in
// properties the provider does not keep on a TXT. A TXT carries all of its record's properties (see
// txtFor), but Route 53, say, keeps a TXT's routing policy and no alias properties: once the cache
// comes from a listing, an alias's TXT lacks alias and aws/evaluate-target-health, and without this
// every update of the alias would rewrite its TXT with the same value. Both TXTs are put into the form
// the provider's Records returns (AdjustEndpoints, in one call for the batch) and compared there; the
// TXT sent is not changed, so what a provider is asked to write stays as it was. When the provider
// cannot tell (an error, or not one endpoint back for each), the updates stay: a needless rewrite
// costs a change, a skipped one would leave a TXT unlike its record.
func (b *batch) withdrawSameAsListed(ctx context.Context) {
	if len(b.propsOnly) == 0 {
		return
	}
	in := make([]*endpoint.Endpoint, 0, 2*len(b.propsOnly))
	for _, c := range b.propsOnly {
		in = append(in, c.ep.DeepCopy(), c.old.DeepCopy())
	}
	out, err := provider.Wrapped{Provider: b.r.provider}.AdjustEndpoints(ctx, in)
	if err != nil || len(out) != len(in) {
		return
	}
	same := map[*sentChange]bool{}
	for i, c := range b.propsOnly {
		wrote, stored := out[2*i], out[2*i+1]
		if keyOf(wrote) == keyOf(c.ep) && keyOf(stored) == keyOf(c.old) &&
			endpoint.SameProviderSpecific(wrote.ProviderSpecific, stored.ProviderSpecific) {
			same[c] = true
		}
	}
	b.sent = slices.DeleteFunc(b.sent, func(c *sentChange) bool { return same[c] })
}

// deleteTXT deletes rec's new-format TXT if it exists and is ours. It sends the stored record set, not
// a regenerated one, because some providers (RFC2136) delete by value. Legacy TXTs are left alone: a
// legacy TXT may still vouch for other record types at the same name.
func (b *batch) deleteTXT(rec *endpoint.Endpoint, o int) {
	k := b.txtKey(rec)
	prev := b.s.entry(k)
	if b.txtSeen[k] || prev == nil || prev.own == nil || !b.ours(prev.own) {
		return
	}
	b.txtSeen[k] = true
	b.send(&sentChange{action: provider.ActionDelete, ep: prev.listedCopy(), origin: o, txt: true})
}

// txtFor builds the ownership TXT of rec. It carries rec's set identifier and provider-specific
// properties, since routing policies (Route53) apply to the TXT too, as external-dns writes it. Some
// of them (alias properties) a provider does not keep on a TXT; withdrawSameAsListed compares what it
// keeps.
func (b *batch) txtFor(rec *endpoint.Endpoint, prev *ownership) (*endpoint.Endpoint, error) {
	value, err := b.r.codec.encode(rec.Labels, prev)
	if err != nil {
		return nil, err
	}
	txt := endpoint.New(b.r.mapper.TXTName(rec.DNSName, rec.RecordType), endpoint.RecordTypeTXT, value)
	txt.SetIdentifier = rec.SetIdentifier
	txt.Labels[endpoint.OwnedRecordLabelKey] = rec.DNSName
	txt.ProviderSpecific = slices.Clone(rec.ProviderSpecific)
	return txt, nil
}

func (b *batch) txtKey(rec *endpoint.Endpoint) endpoint.Key {
	return cacheKey(b.r.mapper.TXTName(rec.DNSName, rec.RecordType), endpoint.RecordTypeTXT, rec.SetIdentifier)
}

// ownedByUs decides whether an update or delete may go ahead. The caller's owner label must be ours,
// and so must the owner the cache's TXTs give the record, so a stale or hand-made endpoint cannot make
// us touch another owner's record. A record missing from the cache is judged by its label alone; the
// provider rejects the change if the record really is gone.
func (b *batch) ownedByUs(e *endpoint.Endpoint) bool {
	if !b.r.ourOwner(e.Owner()) {
		return false
	}
	cached := b.s.entry(keyOf(e))
	switch {
	case cached == nil:
		return true
	case cached.own != nil:
		return false // an ownership TXT is never a record to update or delete
	}
	own := b.r.ownerOf(b.s, cached.ep, b.r.mapper.TXTName(cached.ep.DNSName, cached.ep.RecordType))
	return own != nil && b.ours(own)
}

func (b *batch) ours(own *ownership) bool {
	return b.r.ourOwner(own.labels[endpoint.OwnerLabelKey])
}

func (b *batch) addOrigin(a provider.Action, e *endpoint.Endpoint) int {
	b.origins = append(b.origins, origin{action: a, ep: e})
	return len(b.origins) - 1
}

func (b *batch) send(c *sentChange) { b.sent = append(b.sent, c) }

// changes is the provider call: each record next to its TXT, update pairs aligned.
func (b *batch) changes() *plan.Changes {
	out := &plan.Changes{}
	for _, c := range b.sent {
		switch c.action {
		case provider.ActionCreate:
			out.Create = append(out.Create, c.ep)
		case provider.ActionUpdate:
			out.UpdateOld = append(out.UpdateOld, c.old)
			out.UpdateNew = append(out.UpdateNew, c.ep)
		case provider.ActionDelete:
			out.Delete = append(out.Delete, c.ep)
		}
	}
	return out
}

// prepare copies a caller's endpoint for sending: registry-internal properties removed, and the owner
// stamped when owner is not "".
func prepare(e *endpoint.Endpoint, owner string) *endpoint.Endpoint {
	c := e.DeepCopy()
	c.DeleteProviderSpecific(ForceUpdateProperty)
	if c.Labels == nil {
		c.Labels = endpoint.Labels{}
	}
	if owner != "" {
		c.Labels[endpoint.OwnerLabelKey] = owner
	}
	return c
}

// touchOwned marks, for a TXT record that changed, the name of the record it may own, so that the
// record is folded again with its new ownership.
func (r *Registry) touchOwned(s *state, e *endpoint.Endpoint) {
	if e.RecordType != endpoint.RecordTypeTXT {
		return
	}
	if name, _, ok := r.mapper.RecordName(e.DNSName); ok {
		s.touch(name)
		// The TXT of "*.x" is named after --txt-wildcard-replacement; the record is the wildcard.
		if w := r.mapper.wildcard; w != "" {
			if first, rest, found := strings.Cut(name, "."); found && first == w {
				s.touch("*." + rest)
			}
		}
	}
}

// patch writes the accepted changes into the cache, in the order providers apply them (deletes,
// updates, creates), each record set in the form the provider lists it when that differs from what
// was sent (listedForms). It does nothing if the cache was replaced or dropped meanwhile. exact is
// false when the provider lists in a form of its own and did not give it for every record set.
func (r *Registry) patch(s *state, sent []*sentChange) (exact bool) {
	forms, exact := r.listedForms(sent)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != s {
		return exact
	}
	s.shareLabels = map[string]endpoint.Labels{}
	defer func() { s.shareLabels = nil }()
	for _, a := range []provider.Action{provider.ActionDelete, provider.ActionUpdate, provider.ActionCreate} {
		for _, c := range sent {
			if c.action != a || c.rejected != nil {
				continue
			}
			switch a {
			case provider.ActionDelete:
				s.remove(c.ep)
			case provider.ActionUpdate:
				s.remove(c.old)
				s.put(cmp.Or(forms[c], c.ep), r.codec)
				r.touchOwned(s, c.old)
			case provider.ActionCreate:
				s.put(cmp.Or(forms[c], c.ep), r.codec)
			}
			r.touchOwned(s, c.ep)
		}
	}
	return exact
}

// listedForms asks a provider that stores what it is written in a form of its own
// (provider.ListedFormer: Route 53 fills in the default TTL, keeps no alias property on a TXT) for
// the accepted creates and updates of sent as it lists them now, so that the patched cache is what
// its listing builds. forms is nil for a provider that lists what was sent. exact is false when it
// did not give a form for every one of them (a set it stored under another key, or its cache was
// dropped meanwhile): those keep what was sent, and the cache may differ from the listing.
func (r *Registry) listedForms(sent []*sentChange) (forms map[*sentChange]*endpoint.Endpoint, exact bool) {
	var asked []*sentChange
	var keys []endpoint.Key
	for _, c := range sent {
		if c.rejected == nil && c.action != provider.ActionDelete {
			asked, keys = append(asked, c), append(keys, keyOf(c.ep))
		}
	}
	if len(keys) == 0 {
		return nil, true
	}
	listed, ok := provider.Wrapped{Provider: r.provider}.ListedForm(keys)
	if !ok {
		return nil, true
	}
	forms, exact = make(map[*sentChange]*endpoint.Endpoint, len(asked)), len(listed) == len(keys)
	for i, c := range asked {
		if i < len(listed) && listed[i] != nil && keyOf(listed[i]) == keys[i] {
			forms[c] = listed[i]
		} else {
			exact = false
		}
	}
	return forms, exact
}

// ourOwner reports whether an owner label is ours: our owner id, or the one we migrate from.
func (r *Registry) ourOwner(owner string) bool {
	return owner == r.ownerID || (r.oldOwner != "" && owner == r.oldOwner)
}
