package plan

import (
	"cmp"
	"hash/maphash"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// entry is one endpoint placed in the plan table. The table is a single slice in which each row
// (name, set identifier) is a contiguous run and, inside a row, each record type is a contiguous run
// with the current records before the candidates. Planning then walks sub-slices and allocates
// nothing per row.
//
// An entry is 16 bytes without pointers: the endpoint, the row's name, the set identifier and the
// record type are numbers into the table's lists, so that the table of 10^5 endpoints is small to
// build and to scatter, and the garbage collector has nothing in it to scan.
type entry struct {
	at    int32  // the endpoint's index in table.current, or in table.desired for a candidate
	name  int32  // index into table.names: the nameKey of the DNS name, computed once per name
	setID int32  // index into table.setIDs; 0 is no set identifier
	kind  uint32 // rank<<1, plus 1 for a candidate: orders by type, then current records first
}

func newEntry(at, setID, rank int32, desired bool) entry {
	kind := uint32(rank) << 1
	if desired {
		kind |= 1
	}
	return entry{at: at, setID: setID, kind: kind}
}

// rank is the record type's index in table.types, which orders as the type names do.
func (e entry) rank() int32 { return int32(e.kind >> 1) }

// desired reports whether the entry is a candidate (a desired endpoint) rather than a current record.
func (e entry) desired() bool { return e.kind&1 != 0 }

// ep is the endpoint of an entry.
func (t *table) ep(e entry) *endpoint.Endpoint {
	if e.desired() {
		return t.desired[e.at]
	}
	return t.current[e.at]
}

// table is the plan table and the lists its entries index.
type table struct {
	entries []entry
	current []*endpoint.Endpoint // Input.Current and Input.Desired, which entries index
	desired []*endpoint.Endpoint
	names   []string
	setIDs  []string
	types   recordTypeFilter
}

func (t *table) key(e entry) endpoint.Key {
	return t.keyOfParts(e.name, e.setID, e.rank())
}

func (t *table) keyOfParts(name, setID, rank int32) endpoint.Key {
	return endpoint.Key{DNSName: t.names[name], RecordType: t.types[rank], SetIdentifier: t.setIDs[setID]}
}

// buildTable filters current and desired endpoints and lays them out row by row.
//
// Endpoints are grouped by name (groupByHash, which numbers names in order of first appearance) and a
// counting sort rather than by sorting them all: rows are independent, so the order they are planned
// in does not matter (the output is sorted at the end), and sorting 10^5 entries by three strings
// cost more than the whole rest of the plan. Grouping by name alone hashes less than by a struct;
// set identifiers are rare and are sorted apart inside each name's group.
//
// The rows come out in order of their names' first appearance, so that planning walks the input in
// about its own order: laid out in an order set by the hashes instead, nearly every read of an
// endpoint while planning missed the CPU's cache, and the plan at 10^5 endpoints took twice the CPU.
func buildTable(in Input, types recordTypeFilter, parts int) table {
	n := len(in.Current) + len(in.Desired)
	t := table{current: in.Current, desired: in.Desired, setIDs: []string{""}, types: types}
	// The kept endpoints in input order (an entry's name is set below), their names and the names'
	// hashes. Each part of the input writes from the start of its own stretch, which is as long as the
	// part; the stretches are then moved together.
	inOrder := make([]entry, n)
	names := make([]string, n)
	hashes := make([]uint32, n)
	seed := maphash.MakeSeed() // the numbering does not depend on the hashes, only on first appearance
	var kept int
	if parts == 1 {
		s := scan{}
		s.scanEndpoints(in, types, seed, 0, n, inOrder, names, hashes)
		var setIDs map[string]int32
		kept = s.join(&t, &setIDs, inOrder, names, hashes, 0)
	} else {
		kept = scanInParts(in, types, seed, parts, &t, inOrder, names, hashes)
	}
	inOrder, names, hashes = inOrder[:kept], names[:kept], hashes[:kept]
	group, distinct := groupByHash(names, hashes, parts)
	t.names = distinct
	groupSize := make([]int32, len(distinct))
	for k, g := range group {
		inOrder[k].name = g
		groupSize[g]++
	}

	// Counting sort: next[g] is where the next entry of name group g goes. groupSize becomes next.
	// (Swapping the entries into place instead saves this allocation but costs more: each swap waits
	// for the one before it, where these writes go out together.)
	next := groupSize
	var total int32
	for g, size := range groupSize {
		next[g] = total
		total += size
	}
	t.entries = make([]entry, len(inOrder))
	for _, e := range inOrder {
		t.entries[next[e.name]] = e
		next[e.name]++
	}

	// Order each name group by set identifier, type, current first, which makes every row and every
	// type inside it a contiguous run. Groups are tiny. Ties (several candidates, or duplicate current
	// records, of one key) stay in input order; every choice among them goes through a total order,
	// so the plan is still deterministic.
	for start := 0; start < len(t.entries); {
		end := start + 1
		for end < len(t.entries) && t.entries[end].name == t.entries[start].name {
			end++
		}
		if end-start > 1 {
			t.sortGroup(t.entries[start:end])
		}
		start = end
	}
	return t
}

// scanInParts is scanEndpoints and join for the input in parts, at once, and returns how many
// endpoints were kept. (A function of its own, so that one part, the common case, makes no closure
// and moves nothing to the heap.)
func scanInParts(in Input, types recordTypeFilter, seed maphash.Seed, parts int, t *table, inOrder []entry, names []string, hashes []uint32) int {
	n := len(inOrder)
	scans := make([]scan, parts)
	inParts(parts, func(part int) {
		from, to := part*n/parts, (part+1)*n/parts
		s := &scans[part]
		s.from = from
		s.scanEndpoints(in, types, seed, from, to, inOrder[from:to], names[from:to], hashes[from:to])
	})
	kept := 0
	var setIDs map[string]int32 // made at the first set identifier
	for _, s := range scans {
		kept += s.join(t, &setIDs, inOrder, names, hashes, kept)
	}
	return kept
}

// scan is what one part of the input (Current then Desired as one list, from index from) yields: its
// endpoints that are planned, at the start of its stretch of the lists buildTable passes it, and the
// set identifiers they name, numbered from 1 in order of first appearance in the part.
type scan struct {
	from, kept int
	setIDs     []string
}

// scanEndpoints keeps the endpoints of in from index from to index to that are planned: of a managed
// type, with a name the domain filter selects. Each name is hashed here, while its bytes are in the
// cache from nameKey, rather than in a second pass over 10^5 strings scattered through memory.
func (s *scan) scanEndpoints(in Input, types recordTypeFilter, seed maphash.Seed, from, to int, inOrder []entry, names []string, hashes []uint32) {
	filtered := in.DomainFilter.IsConfigured()
	var setIDs map[string]int32 // made at the first set identifier
	k := 0
	for i := from; i < to; i++ {
		ep := endpointAt(in, i)
		if ep == nil {
			continue
		}
		rank, ok := types.rank(ep.RecordType)
		if !ok {
			continue
		}
		name := nameKey(ep.DNSName)
		if filtered && !in.DomainFilter.matchKey(name) {
			continue
		}
		var setID int32
		if ep.SetIdentifier != "" {
			if setIDs == nil {
				setIDs = map[string]int32{}
			}
			if setID, ok = setIDs[ep.SetIdentifier]; !ok {
				s.setIDs = append(s.setIDs, ep.SetIdentifier)
				setID = int32(len(s.setIDs))
				setIDs[ep.SetIdentifier] = setID
			}
		}
		at, desired := int32(i), i >= len(in.Current)
		if desired {
			at -= int32(len(in.Current))
		}
		inOrder[k] = newEntry(at, setID, int32(rank), desired)
		names[k] = name
		hashes[k] = hash32(seed, name)
		k++
	}
	s.kept = k
}

// join numbers the part's set identifiers in the table (setIDs maps the table's numbers so far) and
// moves its endpoints to position to of the lists, after those of the parts before it. It returns
// how many endpoints the part kept.
func (s *scan) join(t *table, setIDs *map[string]int32, inOrder []entry, names []string, hashes []uint32, to int) int {
	kept := inOrder[s.from : s.from+s.kept]
	if len(s.setIDs) > 0 {
		if *setIDs == nil {
			*setIDs = map[string]int32{}
		}
		number := make([]int32, len(s.setIDs)+1) // the part's number of a set identifier -> the table's
		for i, id := range s.setIDs {
			n, ok := (*setIDs)[id]
			if !ok {
				n = int32(len(t.setIDs))
				(*setIDs)[id] = n
				t.setIDs = append(t.setIDs, id)
			}
			number[i+1] = n
		}
		for k := range kept {
			kept[k].setID = number[kept[k].setID]
		}
	}
	if s.from != to {
		copy(inOrder[to:], kept)
		copy(names[to:], names[s.from:s.from+s.kept])
		copy(hashes[to:], hashes[s.from:s.from+s.kept])
	}
	return s.kept
}

// endpointAt indexes Current then Desired as one list.
func endpointAt(in Input, i int) *endpoint.Endpoint {
	if i < len(in.Current) {
		return in.Current[i]
	}
	return in.Desired[i-len(in.Current)]
}

func (t *table) sortGroup(group []entry) {
	if len(group) > 12 {
		slices.SortStableFunc(group, t.compareInGroup)
		return
	}
	for i := 1; i < len(group); i++ {
		for j := i; j > 0 && t.compareInGroup(group[j-1], group[j]) > 0; j-- {
			group[j-1], group[j] = group[j], group[j-1]
		}
	}
}

func (t *table) compareInGroup(a, b entry) int {
	if a.setID != b.setID {
		return cmp.Compare(t.setIDs[a.setID], t.setIDs[b.setID])
	}
	return cmp.Compare(a.kind, b.kind) // type, then current records before candidates
}

// sameRow reports whether two entries belong to the same row.
func sameRow(a, b entry) bool { return a.name == b.name && a.setID == b.setID }

// typeGroup is the run of one record type inside a row.
type typeGroup struct {
	rank       int32
	current    []entry
	candidates []entry
}

// splitRow appends the type groups of a row to groups (a reused buffer) and returns it.
func splitRow(row []entry, groups []typeGroup) []typeGroup {
	for i := 0; i < len(row); {
		j := i
		for j < len(row) && row[j].rank() == row[i].rank() {
			j++
		}
		k := i
		for k < j && !row[k].desired() {
			k++
		}
		groups = append(groups, typeGroup{rank: row[i].rank(), current: row[i:k], candidates: row[k:j]})
		i = j
	}
	return groups
}
