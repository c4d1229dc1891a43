package plan

import (
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// defaultManagedRecordTypes is the --managed-record-types default. TXT is absent on purpose: ownership
// TXTs belong to the registry and must never be planned.
func defaultManagedRecordTypes() []string {
	return []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}
}

// recordTypeFilter is --managed-record-types minus --exclude-record-types, sorted. A handful of types
// at most, so a slice scan beats a map. A type's place in it (its rank) orders types as their names
// do, so the plan table can hold a small number instead of the type's name.
type recordTypeFilter []string

func newRecordTypeFilter(managed, excluded []string) recordTypeFilter {
	if len(managed) == 0 {
		managed = defaultManagedRecordTypes()
	}
	var out recordTypeFilter
	for _, t := range managed {
		if !contains(excluded, t) && !contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// rank returns the place of a managed type in the filter, and false for a type it does not manage.
func (f recordTypeFilter) rank(recordType string) (int, bool) {
	for i, t := range f {
		if t == recordType {
			return i, true
		}
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
