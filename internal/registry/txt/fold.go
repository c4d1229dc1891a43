package txt

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// ForceUpdateProperty is set (to "true") on records we own whose new-format TXT is missing, so that the
// plan updates them and ApplyChanges writes the TXT, as external-dns v0.18+ does. ApplyChanges strips
// it before anything reaches the provider.
const ForceUpdateProperty = "txt/force-update"

// aliasProperty marks an AWS alias record; see ownerOf.
const aliasProperty = "alias"

// fold turns the cached listing into what Records returns: fresh copies of every record except
// ownership TXTs, labelled with the ownership their TXT declares, sorted by key. The folded records
// are memoized in the state; only names changed since the last fold are folded again. Callers hold
// r.mu for writing.
func (r *Registry) fold(s *state) []*endpoint.Endpoint {
	out := r.foldShared(s)
	for i, e := range out {
		out[i] = e.DeepCopy()
	}
	return out
}

// foldShared is fold without copying the records: the memo's own endpoints, in a list of the
// caller's (a later refold writes into the memo's list, never into this one). Callers hold r.mu for
// writing.
func (r *Registry) foldShared(s *state) []*endpoint.Endpoint {
	r.refold(s)
	if s.unsorted {
		s.resort()
	}
	out := make([]*endpoint.Endpoint, len(s.sorted))
	copy(out, s.sorted)
	return out
}

// refold brings the fold memo up to date with the entries: the names changed since the last call
// are folded again. When keys were added or removed the Records order is left to be rebuilt
// (s.unsorted) by the next fold, so that a lookup of a few names (RecordsNamed) never sorts the zone.
func (r *Registry) refold(s *state) {
	switch {
	case !s.memoBuilt:
		for en := range s.all() {
			if en.own == nil {
				en.folded = r.foldEntry(s, en)
			}
		}
		s.memoBuilt, s.unsorted = true, true
	case len(s.dirty) > 0:
		keysChanged := false
		for k, inMemo := range s.removed { // gone, or an ownership TXT now
			if en := s.entry(k); inMemo && (en == nil || en.own != nil) {
				keysChanged = true
			}
		}
		for name := range s.dirty {
			for en := s.entries.get(name); en != nil; en = en.next {
				if en.own != nil { // an ownership TXT is not a record
					continue
				}
				e := r.foldEntry(s, en)
				en.folded = e
				if i, ok := s.position(e); ok && !s.unsorted {
					s.sorted[i] = e // positions hold until a key is added or removed
				} else {
					keysChanged = true
				}
			}
		}
		if keysChanged {
			s.unsorted = true
		}
	}
	// A full fold leaves every name in dirty; a cleared map keeps its table, so a big one is
	// replaced rather than cleared (events dirty a few names).
	if len(s.dirty) > 64 {
		s.dirty = map[string]bool{}
	} else {
		clear(s.dirty)
	}
	clear(s.removed)
}

// foldEntry is what Records makes of one record entry: a copy labelled with its ownership, marked for
// a forced update when it is ours and its new-format TXT is missing.
//
// A record whose provider labels are all ownership labels (every record a provider returns without
// labels of its own, the common case) is labelled with the ownership's own map, not a copy of it: one
// label map per owned name instead of two (336 bytes each; issue 15). That map is never written once
// shared (see internOwner); a new TXT value decodes into a new one. Such a record is all the entry
// keeps, too: the listed record it was folded from differs from it only in what asListed takes off
// again, and keeping both cost another 176 bytes per record. The same holds for a record nobody owns
// (128 bytes).
func (r *Registry) foldEntry(s *state, en *entry) *endpoint.Endpoint {
	src := en.ep
	if en.folded == src {
		src = asListed(src)
		en.ep = src
	}
	txtName := r.mapper.TXTName(src.DNSName, src.RecordType)
	own := r.ownerOf(s, src, txtName)
	var e *endpoint.Endpoint
	_, forced := src.GetProviderSpecific(ForceUpdateProperty)
	keepsMemo := !forced && onlyOwnershipLabels(src.Labels)
	switch {
	case own != nil && keepsMemo:
		r.internOwner(own)
		c := *src
		c.ProviderSpecific = slices.Clone(src.ProviderSpecific)
		c.Labels = own.labels
		e = &c
		en.ep = e
	case own == nil && keepsMemo:
		// Nobody's record: its copy is the listed record with an empty label map, all the entry keeps.
		e = copyWithoutOwnership(src)
		en.ep = e
	default:
		e = copyWithoutOwnership(src)
		if own != nil {
			for k, v := range own.labels {
				if k == endpoint.OwnerLabelKey && v == r.ownerID {
					v = r.ownerID // one copy of our owner id, which the plan compares with every record's
				}
				e.Labels[k] = v
			}
		}
	}
	if r.ourOwner(e.Owner()) && r.managed[e.RecordType] &&
		s.ownershipTXT(txtName, e.SetIdentifier) == nil {
		e.SetProviderSpecific(ForceUpdateProperty, "true")
	}
	return e
}

// asListed is what a fold reads of the record a memo's record e was folded from (when the entry
// keeps e instead, see foldEntry): no labels (it had only ownership labels, which a fold drops) and
// no forced-update property (it had none; a fold adds it).
func asListed(e *endpoint.Endpoint) *endpoint.Endpoint {
	c := *e
	c.Labels = nil
	c.ProviderSpecific = nil
	for _, p := range e.ProviderSpecific {
		if p.Name != ForceUpdateProperty {
			c.ProviderSpecific = append(c.ProviderSpecific, p)
		}
	}
	return &c
}

// internOwner makes an ownership naming our owner id hold the registry's copy of it, which the plan
// compares with every record's owner (equal pointers compare at once). It writes only before the map
// is first handed out: afterwards the value already is that copy. Callers hold r.mu for writing.
func (r *Registry) internOwner(own *ownership) {
	if v, ok := own.labels[endpoint.OwnerLabelKey]; ok && v == r.ownerID && unsafe.StringData(v) != unsafe.StringData(r.ownerID) {
		own.labels[endpoint.OwnerLabelKey] = r.ownerID
	}
}

// onlyOwnershipLabels reports whether labels hold nothing but ownership labels (or nothing).
func onlyOwnershipLabels(labels endpoint.Labels) bool {
	for k := range labels {
		if !ownershipLabel(k) {
			return false
		}
	}
	return true
}

// resort rebuilds the Records order of the memo, and lays the memo's endpoints out again next to
// each other in that order (see compactInto). A record's position is found again by binary search
// (position), not kept in a map of its own: that map cost 100 bytes per record.
func (s *state) resort() {
	s.sorted = s.sorted[:0]
	for en := range s.all() {
		if en.folded != nil {
			s.sorted = append(s.sorted, en.folded)
		}
	}
	slices.SortFunc(s.sorted, recordsOrder)
	slab, targets := newSlabs(s.sorted)
	for i, old := range s.sorted {
		var e *endpoint.Endpoint
		e, targets = compactInto(&slab[i], old, targets)
		en := s.entry(keyOf(e))
		s.sorted[i], en.folded = e, e
		if en.ep == old {
			en.ep = e // the entry keeps the memo's record (foldEntry)
		}
	}
	s.unsorted = false
}

// recordsOrder is the order of Records: by name, type and set identifier, as the provider spells them.
func recordsOrder(a, b *endpoint.Endpoint) int {
	return cmp.Or(cmp.Compare(a.DNSName, b.DNSName), cmp.Compare(a.RecordType, b.RecordType),
		cmp.Compare(a.SetIdentifier, b.SetIdentifier))
}

// position finds the place of a record with e's name, type and set identifier in the Records order;
// ok is false when there is none (a new key, or one whose name changed case: the order is rebuilt).
// Valid while !s.unsorted.
func (s *state) position(e *endpoint.Endpoint) (int, bool) {
	return slices.BinarySearchFunc(s.sorted, e, recordsOrder)
}

// newSlabs allocates room for copies of eps and of their targets, in one piece each.
func newSlabs(eps []*endpoint.Endpoint) ([]endpoint.Endpoint, []string) {
	n := 0
	for _, e := range eps {
		n += len(e.Targets)
	}
	return make([]endpoint.Endpoint, len(eps)), make([]string, 0, n)
}

// compactInto copies e into dst with its targets appended to the targets slab, and returns dst and
// the slab. The label map is kept, not copied: it is usually the ownership's (see foldEntry), which
// was decoded in listing order, and a copy of it would cost 336 bytes per record. The memo's endpoints are made one at a time, in whatever
// order names were folded (a map's after a big sync), and end up scattered over the heap; a full plan
// then reads them, and their labels, in Records order, and every read missed the CPU cache: planning
// over them took 2.6 times as long as over fresh copies (issue 15). Laid out again in Records order
// they are read in the order they sit in memory. The endpoint replaced in the memo is left as it was,
// for whoever it was handed out to.
func compactInto(dst, e *endpoint.Endpoint, targets []string) (*endpoint.Endpoint, []string) {
	*dst = *e
	if e.Targets != nil {
		start := len(targets)
		targets = append(targets, e.Targets...)
		dst.Targets = targets[start:len(targets):len(targets)] // capped: an append elsewhere cannot reach the next one's
	}
	return dst, targets
}

// ownerOf finds the ownership TXT of a record: the new-format TXT first; for an AWS A alias the
// "cname-" TXT external-dns wrote before v0.22; then, except for AAAA (never written in the legacy
// format), the legacy type-less TXT. txtName is the record's new-format TXT name, which the caller
// has already computed.
func (r *Registry) ownerOf(s *state, e *endpoint.Endpoint, txtName string) *ownership {
	if en := s.ownershipTXT(txtName, e.SetIdentifier); en != nil {
		return en.own
	}
	if e.RecordType == endpoint.RecordTypeA {
		if v, _ := e.GetProviderSpecific(aliasProperty); v == "true" || v == endpoint.RecordTypeA {
			if en := s.ownershipTXT(r.mapper.TXTName(e.DNSName, endpoint.RecordTypeCNAME), e.SetIdentifier); en != nil {
				return en.own
			}
		}
	}
	if e.RecordType == endpoint.RecordTypeAAAA {
		return nil
	}
	legacy := r.mapper.LegacyTXTName(e.DNSName)
	// A name that reads back as new-format is some other record's TXT (record "a-foo" vs the TXT of
	// "foo" A); claiming it would hand us a record we may not own.
	if _, t, ok := r.mapper.RecordName(legacy); !ok || t != "" {
		return nil
	}
	if en := s.ownershipTXT(legacy, e.SetIdentifier); en != nil {
		return en.own
	}
	return nil
}

// ownershipLabel reports the labels only a TXT may assert. Whatever a provider returns under these keys
// is dropped, so ownership never comes from anywhere but the TXT.
func ownershipLabel(key string) bool {
	return key == endpoint.OwnerLabelKey || key == endpoint.ResourceLabelKey || key == endpoint.TxtEncryptionNonce
}

// copyWithoutOwnership is DeepCopy with the ownership labels left out, in one pass. The targets are
// shared with src, the cache's private record: neither is ever modified (a change to the cache puts a
// new record and folds a new endpoint), and Records hands out copies.
func copyWithoutOwnership(src *endpoint.Endpoint) *endpoint.Endpoint {
	e := *src
	e.ProviderSpecific = slices.Clone(src.ProviderSpecific)
	e.Labels = make(endpoint.Labels, len(src.Labels)+3)
	for k, v := range src.Labels {
		if !ownershipLabel(k) {
			e.Labels[k] = v
		}
	}
	return &e
}
