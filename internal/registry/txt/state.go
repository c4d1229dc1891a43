package txt

import (
	"slices"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// entry is one record set as the provider holds it, with its ownership value parsed if it is an
// ownership TXT.
type entry struct {
	ep  *endpoint.Endpoint // private copy; never handed out
	own *ownership         // nil unless this is an external-dns ownership TXT
	// folded is the fold memo's record for this entry: what fold made of it (nil until the first fold,
	// and always for an ownership TXT). It lives here rather than in a map of its own beside entries,
	// which cost about 100 bytes per record (issue 15).
	folded *endpoint.Endpoint
}

// state is the cached provider listing. Keys are lower-cased so lookups by computed TXT names ignore
// the case a provider happens to return.
type state struct {
	entries  map[endpoint.Key]*entry
	loadedAt time.Time
	// partial names the zones the provider could not list (nil when it listed all); their records are
	// missing from entries.
	partial error
	// byName indexes the keys of the record entries (not the ownership TXTs, which are never folded)
	// by (lower-cased) name, so that one name can be folded again. A name holds one or a few record
	// sets: a slice costs 48 bytes where a map cost over 400; leaving the ownership TXTs out saves
	// about 120 bytes per owned record.
	byName map[string][]endpoint.Key

	// The fold memo: whether it was built (each record entry's folded), its endpoints in Records order,
	// and the names whose entries or ownership changed since (they are folded again on the next call).
	// An event then costs a fold of the names it touched, not of the zone.
	memoBuilt bool
	sorted    []*endpoint.Endpoint
	dirty     map[string]bool
	// removed holds the keys removed, or turned into ownership TXTs, since the last fold (an update may
	// put them back), and whether the memo held a record at each.
	removed map[endpoint.Key]bool
	// unsorted: keys were added to or removed from folded since sorted was built.
	unsorted bool
	// nonASCII counts the entries whose name is not ASCII: the plan compares such names in punycode,
	// so a lookup by name (RecordsNamed) cannot be trusted to find them.
	nonASCII int

	// serial numbers the listing this state was built from; mutations counts the changes applied to
	// it since. Together they tell a caller whether Records would return anything new (Generation).
	serial, mutations uint64
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
	return endpoint.Key{DNSName: strings.ToLower(strings.TrimSuffix(name, ".")), RecordType: recordType, SetIdentifier: setID}
}

func keyOf(e *endpoint.Endpoint) endpoint.Key {
	return cacheKey(e.DNSName, e.RecordType, e.SetIdentifier)
}

// newState builds the cache from a listing; the endpoints become the cache's own.
func newState(records []*endpoint.Endpoint, c codec, now time.Time) *state {
	s := &state{entries: make(map[endpoint.Key]*entry, len(records)), loadedAt: now, dirty: map[string]bool{},
		removed: map[endpoint.Key]bool{}}
	for _, e := range records {
		k := keyOf(e)
		if _, replaced := s.entries[k]; !replaced && !endpoint.IsASCII(k.DNSName) {
			s.nonASCII++
		}
		s.entries[k] = &entry{ep: e, own: c.decodeRecord(e)}
		s.dirty[k.DNSName] = true
		s.mutations++
	}
	// The index holds the records only (see byName), and is sized for them: a map made for every
	// entry would keep room for the ownership TXTs' names as well.
	s.byName = make(map[string][]endpoint.Key, s.records())
	for _, e := range records {
		if k := keyOf(e); s.entries[k].ep == e && s.entries[k].own == nil {
			s.index(k)
		}
	}
	return s
}

// put stores a record set, replacing any with the same key.
func (s *state) put(e *endpoint.Endpoint, c codec) {
	k := keyOf(e)
	old := s.entries[k]
	if old == nil && !endpoint.IsASCII(k.DNSName) {
		s.nonASCII++
	}
	en := &entry{ep: e, own: c.decodeRecord(e)}
	s.entries[k] = en
	switch {
	case en.own == nil:
		s.index(k)
		if old != nil {
			// The memo's record stays where it was until the name is folded again: the fold then
			// replaces it in place, or drops it (removed) if the record leaves before that.
			en.folded = old.folded
		}
	case old != nil && old.own == nil: // a record became an ownership TXT: it leaves the memo
		s.unindex(k)
		s.markRemoved(k, old)
	}
	s.dirty[k.DNSName] = true
	s.mutations++
}

func (s *state) remove(e *endpoint.Endpoint) {
	k := keyOf(e)
	old, had := s.entries[k]
	if had && !endpoint.IsASCII(k.DNSName) {
		s.nonASCII--
	}
	delete(s.entries, k)
	s.unindex(k)
	s.dirty[k.DNSName] = true
	s.markRemoved(k, old)
	s.mutations++
}

// markRemoved notes that the entry old (nil if there was none) left k, and whether the memo held a
// record for it, since the last fold.
func (s *state) markRemoved(k endpoint.Key, old *entry) {
	s.removed[k] = s.removed[k] || old != nil && old.folded != nil
}

// index adds a record's key to byName.
func (s *state) index(k endpoint.Key) {
	if keys := s.byName[k.DNSName]; !slices.Contains(keys, k) {
		s.byName[k.DNSName] = append(keys, k)
	}
}

// unindex takes a key out of byName, if it is there.
func (s *state) unindex(k endpoint.Key) {
	if keys := slices.DeleteFunc(s.byName[k.DNSName], func(x endpoint.Key) bool { return x == k }); len(keys) > 0 {
		s.byName[k.DNSName] = keys
	} else {
		delete(s.byName, k.DNSName)
	}
}

// touch marks a name to be folded again (its ownership TXT changed).
func (s *state) touch(name string) {
	s.dirty[strings.ToLower(strings.TrimSuffix(name, "."))] = true
	s.mutations++
}

// ownershipTXT returns the ownership TXT stored at a name, or nil.
func (s *state) ownershipTXT(name, setID string) *entry {
	en := s.entries[cacheKey(name, endpoint.RecordTypeTXT, setID)]
	if en == nil || en.own == nil {
		return nil
	}
	return en
}
