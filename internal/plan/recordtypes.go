package plan

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// defaultManagedRecordTypes is the --managed-record-types default. TXT is absent on purpose: ownership
// TXTs belong to the registry and must never be planned.
func defaultManagedRecordTypes() []string {
	return []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME}
}

// recordTypeFilter is --managed-record-types minus --exclude-record-types. A handful of types at most,
// so a slice scan beats a map.
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
	return out
}

func (f recordTypeFilter) manages(recordType string) bool { return contains(f, recordType) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
