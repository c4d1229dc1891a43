package plan

import (
	"cmp"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// entry is one endpoint placed in the plan table. The table is a single slice in which each row
// (name, set identifier) is a contiguous run and, inside a row, each record type is a contiguous run
// with the current records before the candidates. Planning then walks sub-slices and allocates
// nothing per row.
type entry struct {
	name       string // nameKey of the DNS name, computed once
	setID      string
	recordType string
	desired    bool
	ep         *endpoint.Endpoint
}

func (e entry) key() endpoint.Key {
	return endpoint.Key{DNSName: e.name, RecordType: e.recordType, SetIdentifier: e.setID}
}

// buildTable filters current and desired endpoints and lays them out row by row.
//
// Endpoints are grouped by name with a map and a counting sort rather than by sorting them all: rows
// are independent, so the order they are planned in does not matter (the output is sorted at the
// end), and sorting 10^5 entries by three strings cost more than the whole rest of the plan. The map
// is keyed by name alone, which hashes faster than a struct; set identifiers are rare and are sorted
// apart inside each name's group.
func buildTable(in Input, types recordTypeFilter) []entry {
	n := len(in.Current) + len(in.Desired)
	groups := make(map[string]int32, max(len(in.Current), len(in.Desired)))
	var groupSize []int32
	groupOf := make([]int32, n) // name group of each input endpoint, -1 when filtered out
	names := make([]string, n)
	for i := range n {
		ep := endpointAt(in, i)
		groupOf[i] = -1
		if ep == nil || !types.manages(ep.RecordType) {
			continue
		}
		name := nameKey(ep.DNSName)
		if !in.DomainFilter.matchKey(name) {
			continue
		}
		g, ok := groups[name]
		if !ok {
			g = int32(len(groupSize))
			groups[name] = g
			groupSize = append(groupSize, 0)
		}
		groupSize[g]++
		groupOf[i], names[i] = g, name
	}

	// Counting sort: next[g] is where the next entry of name group g goes.
	next := make([]int32, len(groupSize))
	var total int32
	for g, size := range groupSize {
		next[g] = total
		total += size
	}
	entries := make([]entry, total)
	for i := range n {
		g := groupOf[i]
		if g < 0 {
			continue
		}
		ep := endpointAt(in, i)
		entries[next[g]] = entry{name: names[i], setID: ep.SetIdentifier, recordType: ep.RecordType, desired: i >= len(in.Current), ep: ep}
		next[g]++
	}

	// Order each name group by set identifier, type, current first, which makes every row and every
	// type inside it a contiguous run. Groups are tiny. Ties (several candidates, or duplicate current
	// records, of one key) stay in input order; every choice among them goes through a total order,
	// so the plan is still deterministic.
	for start := 0; start < len(entries); {
		end := start + 1
		for end < len(entries) && entries[end].name == entries[start].name {
			end++
		}
		sortGroup(entries[start:end])
		start = end
	}
	return entries
}

// endpointAt indexes Current then Desired as one list.
func endpointAt(in Input, i int) *endpoint.Endpoint {
	if i < len(in.Current) {
		return in.Current[i]
	}
	return in.Desired[i-len(in.Current)]
}

func sortGroup(group []entry) {
	if len(group) > 12 {
		slices.SortStableFunc(group, compareInGroup)
		return
	}
	for i := 1; i < len(group); i++ {
		for j := i; j > 0 && compareInGroup(group[j-1], group[j]) > 0; j-- {
			group[j-1], group[j] = group[j], group[j-1]
		}
	}
}

func compareInGroup(a, b entry) int {
	if c := cmp.Compare(a.setID, b.setID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.recordType, b.recordType); c != 0 {
		return c
	}
	switch {
	case a.desired == b.desired:
		return 0
	case b.desired:
		return -1
	default:
		return 1
	}
}

// sameRow reports whether two entries belong to the same row.
func sameRow(a, b entry) bool { return a.name == b.name && a.setID == b.setID }

// typeGroup is the run of one record type inside a row.
type typeGroup struct {
	recordType string
	current    []entry
	candidates []entry
}

// splitRow appends the type groups of a row to groups (a reused buffer) and returns it.
func splitRow(row []entry, groups []typeGroup) []typeGroup {
	for i := 0; i < len(row); {
		j := i
		for j < len(row) && row[j].recordType == row[i].recordType {
			j++
		}
		k := i
		for k < j && !row[k].desired {
			k++
		}
		groups = append(groups, typeGroup{recordType: row[i].recordType, current: row[i:k], candidates: row[k:j]})
		i = j
	}
	return groups
}
