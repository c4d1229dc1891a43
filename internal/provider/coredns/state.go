package coredns

import (
	"bytes"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// nameState is what etcd holds for one name, and what the accepted changes make of it.
type nameState struct {
	name    string
	apex    bool
	entries []entry           // the name's values as read
	mirror  map[string][]byte // apex only: the values under <zone>/dns/apex/
	sets    map[string]recordSet
	touched map[string]bool // record types the accepted changes replace
	changes []change        // accepted changes, for error reports
}

func newNameState(name string, apex bool) *nameState {
	return &nameState{name: name, apex: apex, mirror: map[string][]byte{}, sets: map[string]recordSet{}, touched: map[string]bool{}}
}

// load fills the state from key/value pairs read at and below the name's path.
func (s *nameState) load(l keyLayout, key string, value []byte) {
	if s.apex && strings.HasPrefix(key, l.apexMirrorDir(s.name)) {
		s.mirror[key] = value
		return
	}
	e, ok := l.decodeEntry(key, value)
	if !ok || e.name != s.name {
		return
	}
	s.entries = append(s.entries, e)
	for _, r := range e.records {
		set, ok := s.sets[r.Type]
		if !ok {
			set = recordSet{recordType: r.Type, ttl: r.TTL, group: r.Group}
		}
		if !containsTarget(set.targets, r.Target) {
			set.targets = append(set.targets, r.Target)
		}
		s.sets[r.Type] = set
	}
}

// apply applies one change, or returns why the name cannot take it; a refused change leaves the state
// as it was.
func (s *nameState) apply(c change) error {
	next := maps.Clone(s.sets)
	switch {
	case c.oldType != "" && c.oldType != c.set.recordType: // update that changes the type
		delete(next, c.oldType)
		next[c.set.recordType] = c.set
	case len(c.set.targets) == 0: // delete
		delete(next, c.set.recordType)
	default: // create, update; a create of an existing set replaces it (a retried apply is harmless)
		next[c.set.recordType] = c.set
	}
	if _, ok := next[endpoint.RecordTypeCNAME]; ok {
		for _, other := range []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA} {
			if _, clash := next[other]; clash {
				return fmt.Errorf("a CNAME cannot share the name %s with %s records (CoreDNS would answer both)", s.name, other)
			}
		}
	}
	s.sets = next
	s.touched[c.set.recordType] = true
	if c.oldType != "" {
		s.touched[c.oldType] = true
	}
	s.changes = append(s.changes, c)
	return nil
}

// keyValue is one put.
type keyValue struct {
	key   string
	value []byte
}

// ops returns the puts and deletes that turn what etcd holds into the changed state. Entries holding a
// touched type are rewritten at their stable keys (this also moves values external-dns wrote under
// random ids, and splits its host+text entries); entries of untouched types are left alone. Deletes
// name exact keys, never prefixes.
func (s *nameState) ops(l keyLayout) (puts []keyValue, deletes []string) {
	desired := map[string][]byte{}
	for t, set := range s.sets {
		if !s.touched[t] {
			continue
		}
		for _, r := range set.records() {
			l.addRecord(desired, s.name, r)
		}
	}
	existing := map[string][]byte{}
	var takenOver []string
	for _, e := range s.entries {
		existing[e.key] = e.raw
		if !s.holdsTouched(e) {
			continue
		}
		takenOver = append(takenOver, e.key)
		for _, r := range e.records {
			if !s.touched[r.Type] { // the other half of an external-dns host+text entry
				l.addRecord(desired, s.name, r)
			}
		}
	}
	if s.apex && (s.touched[endpoint.RecordTypeA] || s.touched[endpoint.RecordTypeAAAA]) {
		dir := l.apexMirrorDir(s.name)
		for _, t := range []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA} {
			for _, r := range s.sets[t].records() {
				desired[dir+recordID(r.Type, r.Target)] = r.encode(1)
			}
		}
		for k, v := range s.mirror {
			existing[k] = v
			takenOver = append(takenOver, k)
		}
	}
	for k, v := range desired {
		if old, ok := existing[k]; !ok || !bytes.Equal(old, v) {
			puts = append(puts, keyValue{k, v})
		}
	}
	for _, k := range takenOver {
		if _, keep := desired[k]; !keep {
			deletes = append(deletes, k)
		}
	}
	sort.Slice(puts, func(i, j int) bool { return puts[i].key < puts[j].key })
	sort.Strings(deletes)
	return puts, deletes
}

func (s *nameState) holdsTouched(e entry) bool {
	for _, r := range e.records {
		if s.touched[r.Type] {
			return true
		}
	}
	return false
}
