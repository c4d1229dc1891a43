package aws

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// TestCachedSetKeepsItsKey: an entry of the cache keeps its key in a compact form (the type as a
// position in the zone's table of types, the set identifier behind a pointer); sets that differ only
// in type or set identifier, a type no set had before, holes and compaction, with the zone's own hash
// and with every key colliding, give back exactly the keys and sets put. An entry is 72 bytes (88 as
// an rrKey beside a storedSet, 40,000 of them at 20,000 Ingresses).
func TestCachedSetKeepsItsKey(t *testing.T) {
	if size := unsafe.Sizeof(cachedSet{}); size > 72 {
		t.Errorf("a cached set is %d bytes, want at most 72", size)
	}
	for _, colliding := range []bool{false, true} {
		c := newZoneContents()
		if colliding {
			c.hash = func(rrKey) uint64 { return 7 }
		}
		var keys []rrKey
		for _, name := range []string{"a.example.com", "b.example.com"} {
			for _, typ := range []string{"A", "AAAA", "TXT", "XYZ"} {
				for _, id := range []string{"", "blue", "green"} {
					keys = append(keys, rrKey{name, typ, id})
				}
			}
		}
		value := func(k rrKey) string { return fmt.Sprint(k) }
		for _, k := range keys {
			rr := &r53types.ResourceRecordSet{Name: ptr(k.name + "."), Type: r53types.RRType(k.recordType), TTL: ptr(int64(60)),
				ResourceRecords: []r53types.ResourceRecord{{Value: ptr(value(k))}}}
			if k.setID != "" {
				rr.SetIdentifier, rr.Weight = ptr(k.setID), ptr(int64(1))
			}
			c.put(rr)
		}
		check := func(step string, want []rrKey) {
			t.Helper()
			var listed []rrKey
			for i := range c.entries {
				if e := &c.entries[i]; !e.hole() {
					listed = append(listed, c.keyOf(e))
				}
			}
			if !slices.Equal(listed, want) {
				t.Fatalf("colliding=%v %s: keys %v, want %v", colliding, step, listed, want)
			}
			for _, k := range keys {
				s, ok := c.lookup(k)
				if ok != slices.Contains(want, k) || ok && (len(s.values) != 1 || s.values[0] != value(k) || s.ttl != 60 ||
					(k.setID != "") != (s.rest != nil) || s.recordSet(k).SetIdentifier != nil && *s.recordSet(k).SetIdentifier != k.setID) {
					t.Fatalf("colliding=%v %s: %v gives %+v, %v", colliding, step, k, s, ok)
				}
			}
		}
		check("after the puts", keys)
		var kept []rrKey
		for i, k := range keys {
			if i%3 == 1 || k.recordType == "AAAA" {
				c.remove(k)
			} else {
				kept = append(kept, k)
			}
		}
		check("after the removals", kept)
		c.reindex()
		check("after reindexing", kept)
		if len(c.types) != 4 {
			t.Errorf("colliding=%v: the zone's table of types is %v, want each type once", colliding, c.types)
		}
	}
}
