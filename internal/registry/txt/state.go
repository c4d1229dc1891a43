package txt

import (
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// entry is one record set as the provider holds it, with its ownership value parsed if it is an
// ownership TXT.
type entry struct {
	ep  *endpoint.Endpoint // private copy; never handed out
	own *ownership         // nil unless this is an external-dns ownership TXT
}

// state is the cached provider listing. Keys are lower-cased so lookups by computed TXT names ignore
// the case a provider happens to return.
type state struct {
	entries  map[endpoint.Key]*entry
	loadedAt time.Time
}

func cacheKey(name, recordType, setID string) endpoint.Key {
	return endpoint.Key{DNSName: strings.ToLower(strings.TrimSuffix(name, ".")), RecordType: recordType, SetIdentifier: setID}
}

func keyOf(e *endpoint.Endpoint) endpoint.Key {
	return cacheKey(e.DNSName, e.RecordType, e.SetIdentifier)
}

// newState builds the cache from a listing; the endpoints become the cache's own.
func newState(records []*endpoint.Endpoint, c codec, now time.Time) *state {
	s := &state{entries: make(map[endpoint.Key]*entry, len(records)), loadedAt: now}
	for _, e := range records {
		s.put(e, c)
	}
	return s
}

// put stores a record set, replacing any with the same key.
func (s *state) put(e *endpoint.Endpoint, c codec) {
	s.entries[keyOf(e)] = &entry{ep: e, own: c.decodeRecord(e)}
}

func (s *state) remove(e *endpoint.Endpoint) {
	delete(s.entries, keyOf(e))
}

// ownershipTXT returns the ownership TXT stored at a name, or nil.
func (s *state) ownershipTXT(name, setID string) *entry {
	en := s.entries[cacheKey(name, endpoint.RecordTypeTXT, setID)]
	if en == nil || en.own == nil {
		return nil
	}
	return en
}
