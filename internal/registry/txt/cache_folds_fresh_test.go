package txt

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// cacheFoldsFresh fails the test at step unless the registry's cache, as its writes (or a test) patched
// it, folds to what a fresh registry over the same provider lists, in every field (describeEvery), and a
// lookup by name (RecordsNamed) finds exactly the fresh registry's records at that name, for every name
// it lists and for each of names (which may list none, as a name whose records all went).
func cacheFoldsFresh(t *testing.T, r *Registry, p provider.Provider, cfg Config, step string, names ...string) {
	t.Helper()
	got, ok := r.CachedRecords()
	if !ok {
		t.Fatalf("%s: nothing cached", step)
	}
	want := mustRecords(t, mustNew(t, p, cfg))
	if g, w := describeEvery(got), describeEvery(want); g != w {
		t.Fatalf("%s: the cache folds\n%s\na fresh registry\n%s", step, g, w)
	}
	atName := map[string][]*endpoint.Endpoint{}
	for _, name := range names {
		atName[name] = nil
	}
	for _, e := range want {
		atName[e.DNSName] = append(atName[e.DNSName], e)
	}
	for _, name := range slices.Sorted(maps.Keys(atName)) {
		named, _, _, ok := r.RecordsNamed([]string{name})
		if !ok {
			t.Fatalf("%s: no lookup by name", step)
		}
		slices.SortFunc(named, recordsOrder)
		if g, w := describeEvery(named), describeEvery(atName[name]); g != w {
			t.Errorf("%s: a lookup of %s finds\n%s\nat the name are\n%s", step, name, g, w)
		}
	}
}

// describeEvery spells out every field a fold sets, labels in key order, an empty list of properties
// as none.
func describeEvery(eps []*endpoint.Endpoint) string {
	var b strings.Builder
	for _, e := range eps {
		fmt.Fprintf(&b, "%s %s [%s] ttl=%d %v {", e.DNSName, e.RecordType, e.SetIdentifier, e.RecordTTL, e.Targets)
		for _, k := range slices.Sorted(maps.Keys(e.Labels)) {
			fmt.Fprintf(&b, "%s=%s ", k, e.Labels[k])
		}
		fmt.Fprintf(&b, "} %v; ", []endpoint.ProviderSpecificProperty(e.ProviderSpecific))
	}
	return b.String()
}
