package txt

import (
	"iter"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// entry is one record set as the provider holds it, with its ownership value parsed if it is an
// ownership TXT.
type entry struct {
	// ep is the listed record set, or the memo's record standing for it (see foldEntry); never
	// written. It is nil for an ownership TXT whose ownership keeps it (see compactListed).
	ep  *endpoint.Endpoint
	own *ownership // nil unless this is an external-dns ownership TXT
	// folded is the fold memo's record for this entry: what fold made of it (nil until the first fold,
	// and always for an ownership TXT). It lives here rather than in a map of its own beside entries,
	// which cost about 100 bytes per record (issue 15).
	folded *endpoint.Endpoint
	// next is the next record set at the same name (see state.entries).
	next *entry
}

// recordType is the entry's record type.
func (en *entry) recordType() string {
	if en.ep == nil {
		return endpoint.RecordTypeTXT // compact ownership TXTs only
	}
	return en.ep.RecordType
}

// setID is the entry's set identifier.
func (en *entry) setID() string {
	if en.ep == nil {
		return "" // compact ownership TXTs only
	}
	return en.ep.SetIdentifier
}

// listedCopy is a copy of the record set as listed, for the provider (a delete or an update's old
// side). Only for ownership TXTs: a record's entry may keep the memo's record (see foldEntry).
func (en *entry) listedCopy() *endpoint.Endpoint {
	if en.ep == nil {
		return en.own.listedTXT()
	}
	return en.ep.DeepCopy()
}

// listedProviderSpecific is the properties of the record set as listed (ownership TXTs only).
func (en *entry) listedProviderSpecific() endpoint.ProviderSpecific {
	if en.ep == nil {
		return nil
	}
	return en.ep.ProviderSpecific
}

// state is the cached provider listing.
type state struct {
	// entries holds the record sets by name, lower-cased and without the trailing dot so that lookups
	// by computed TXT names ignore the case a provider happens to return; the sets at one name (a
	// record and its legacy TXT, say, or several set identifiers) are chained through entry.next.
	// Keyed by name, the index is also the one a name is folded again by: a map by key beside an index
	// by name cost about 230 bytes more per owned record (issue 15).
	entries  nameIndex
	loadedAt time.Time
	// partial names the zones the provider could not list (nil when it listed all); their records are
	// missing from entries.
	partial error

	// The fold memo: whether it was built (each record entry's folded), its endpoints in Records order,
	// and the names whose entries or ownership changed since (they are folded again on the next call).
	// An event then costs a fold of the names it touched, not of the zone.
	memoBuilt bool
	sorted    []*endpoint.Endpoint
	dirty     map[string]bool
	// removed holds the keys removed, or turned into ownership TXTs, since the last fold (an update may
	// put them back), and whether the memo held a record at each.
	removed map[endpoint.Key]bool
	// unsorted: records were added to or removed from the memo since sorted was built.
	unsorted bool
	// nonASCII counts the entries whose name is not ASCII: the plan compares such names in punycode,
	// so a lookup by name (RecordsNamed) cannot be trusted to find them.
	nonASCII int

	// serial numbers the listing this state was built from; mutations counts the changes applied to
	// it since. Together they tell a caller whether Records would return anything new (Generation).
	serial, mutations uint64
	// shareLabels is set while a listing or a batch of writes is put into the state (newState, patch):
	// the label map of each plain ownership value put so far, by value. An ownership TXT with the same
	// value gets that map instead of one of its own (see sharedLabels).
	shareLabels map[string]endpoint.Labels

	// listing is the hash of the provider's records this state was built from (listingHash), and
	// listedMutations the mutations count right after building: while they are equal the state is
	// exactly what that listing makes.
	listing, listedMutations uint64
}

// sameListing tells whether s is exactly what a complete listing hashing to sum would build.
func (s *state) sameListing(sum uint64) bool {
	return s != nil && s.partial == nil && s.listing == sum && s.mutations == s.listedMutations
}

func cacheKey(name, recordType, setID string) endpoint.Key {
	return endpoint.Key{DNSName: nameKey(name), RecordType: recordType, SetIdentifier: setID}
}

func keyOf(e *endpoint.Endpoint) endpoint.Key {
	return cacheKey(e.DNSName, e.RecordType, e.SetIdentifier)
}

// newState builds the cache from a listing; the endpoints become the cache's own.
//
// A listed record without labels (an ownership TXT always, as providers list it) comes with an empty
// label map of its own, 48 bytes; the entries share one instead. Nothing writes to an entry's
// endpoint, and what is sent from it to the provider is a DeepCopy, which makes a fresh empty map as
// before.
func newState(records []*endpoint.Endpoint, c codec, now time.Time) *state {
	s := &state{entries: newNameIndex(len(records)), loadedAt: now, dirty: map[string]bool{},
		removed: map[endpoint.Key]bool{}}
	noLabels := endpoint.Labels{}
	s.shareLabels = map[string]endpoint.Labels{}
	for _, e := range records {
		if e.Labels != nil && len(e.Labels) == 0 {
			e.Labels = noLabels
		}
		s.put(e, c)
	}
	s.shareLabels = nil
	return s
}

// entry returns the record set stored under k, or nil.
func (s *state) entry(k endpoint.Key) *entry {
	for en := s.entries.get(k.DNSName); en != nil; en = en.next {
		if en.recordType() == k.RecordType && en.setID() == k.SetIdentifier {
			return en
		}
	}
	return nil
}

// all yields every entry.
func (s *state) all() iter.Seq[*entry] {
	return func(yield func(*entry) bool) {
		for first := range s.entries.firsts() {
			for en := first; en != nil; en = en.next {
				if !yield(en) {
					return
				}
			}
		}
	}
}

// put stores a record set, replacing any with the same key (in place: the sets at a name keep their
// order). An ownership TXT in the common form is kept in its ownership, not as e (compactListed).
func (s *state) put(e *endpoint.Endpoint, c codec) {
	k := keyOf(e)
	own, value := c.decodeRecord(e)
	ep := e
	if own != nil {
		if compactListed(e, own) {
			ep = nil
		}
		s.sharedLabels(own, value)
	}
	switch en := s.entry(k); {
	case en == nil:
		if !endpoint.IsASCII(k.DNSName) {
			s.nonASCII++
		}
		s.append(k.DNSName, &entry{ep: ep, own: own})
	case own != nil && en.own == nil: // a record became an ownership TXT: it leaves the memo
		s.markRemoved(k, en)
		en.ep, en.own, en.folded = ep, own, nil
	default:
		// A record replacing a record keeps the memo's record where it was until the name is
		// folded again: the fold then replaces it in place, or drops it (removed) if the record
		// leaves before that.
		en.ep, en.own = ep, own
	}
	s.dirty[k.DNSName] = true
	s.mutations++
}

// sharedLabels gives own, read from value, the label map of an ownership put earlier with the same
// value, while s.shareLabels is set. The label map is the largest part of what the cache holds per
// owned name (336 bytes for an owner and a resource), and the records a map labels (see foldEntry)
// are handed out without copies; the TXTs of a name's A and AAAA records say the same, and so do
// the owner-only TXTs of many names. Sharing is safe because nothing writes to an ownership's map
// once it is decoded but internOwner, which writes before the map is first handed out and then
// finds nothing to change (TestSharedLabelMapsStayAsDecoded). An encrypted value, whose labels
// carry its own nonce, keeps its own map.
func (s *state) sharedLabels(own *ownership, value string) {
	if s.shareLabels == nil || own.encrypted {
		return
	}
	if m, ok := s.shareLabels[value]; ok {
		own.labels = m
		return
	}
	s.shareLabels[value] = own.labels
}

// append adds en after the record sets already at name.
func (s *state) append(name string, en *entry) {
	last := s.entries.get(name)
	if last == nil {
		s.entries.set(name, en)
		return
	}
	for last.next != nil {
		last = last.next
	}
	last.next = en
}

func (s *state) remove(e *endpoint.Endpoint) {
	k := keyOf(e)
	var prev, en *entry
	for en = s.entries.get(k.DNSName); en != nil; prev, en = en, en.next {
		if en.recordType() == k.RecordType && en.setID() == k.SetIdentifier {
			break
		}
	}
	if en != nil {
		if !endpoint.IsASCII(k.DNSName) {
			s.nonASCII--
		}
		switch {
		case prev != nil:
			prev.next = en.next
		case en.next != nil:
			s.entries.set(k.DNSName, en.next)
		default:
			s.entries.del(k.DNSName)
		}
	}
	s.dirty[k.DNSName] = true
	s.markRemoved(k, en)
	s.mutations++
}

// markRemoved notes that the entry old (nil if there was none) left k, and whether the memo held a
// record for it, since the last fold.
func (s *state) markRemoved(k endpoint.Key, old *entry) {
	s.removed[k] = s.removed[k] || old != nil && old.folded != nil
}

// touch marks a name to be folded again (its ownership TXT changed).
func (s *state) touch(name string) {
	s.dirty[nameKey(name)] = true
	s.mutations++
}

// ownershipTXT returns the ownership TXT stored at a name, or nil.
func (s *state) ownershipTXT(name, setID string) *entry {
	en := s.entry(cacheKey(name, endpoint.RecordTypeTXT, setID))
	if en == nil || en.own == nil {
		return nil
	}
	return en
}
