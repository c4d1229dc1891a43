package aws

import (
	"fmt"
	"math/rand/v2"
	"testing"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// TestSetIndexIsAMapByKey runs a zone's index through random puts and removals (with compaction),
// against a map: with the zone's own hash, with every key hashing alike, and with few hashes that
// sit at the end of the table so that runs wrap around to its start (the deletion's backward shift
// crosses the end). After each step every key is looked up, the count compared, and each filed slot
// checked to be reachable from its key's home without an empty slot between.
func TestSetIndexIsAMapByKey(t *testing.T) {
	hashes := map[string]func(*zoneContents) func(rrKey) uint64{
		"own":       func(c *zoneContents) func(rrKey) uint64 { return c.hash },
		"colliding": func(*zoneContents) func(rrKey) uint64 { return func(rrKey) uint64 { return 7 } },
		"wrapping": func(c *zoneContents) func(rrKey) uint64 {
			own := c.hash
			return func(k rrKey) uint64 { return own(k)%3 + 1<<62 - 3 } // the last slots of any table
		},
	}
	for name, hashOf := range hashes {
		rng := rand.New(rand.NewPCG(1, 2))
		c := newZoneContents()
		c.hash = hashOf(c)
		want := map[rrKey]string{}
		var pool []rrKey
		for i := range 120 {
			k := rrKey{fmt.Sprintf("h%d.example.com", i%60), []string{"A", "TXT"}[i%2], ""}
			if i%7 == 0 {
				k.setID = "blue"
			}
			pool = append(pool, k)
		}
		for step := range 3000 {
			k := pool[rng.IntN(len(pool))]
			if rng.IntN(3) == 0 {
				delete(want, k)
				c.remove(k)
				c.compact()
			} else {
				v := fmt.Sprint(step)
				want[k] = v
				rr := &r53types.ResourceRecordSet{Name: ptr(k.name + "."), Type: r53types.RRType(k.recordType), TTL: ptr(int64(60)),
					ResourceRecords: []r53types.ResourceRecord{{Value: ptr(v)}}}
				if k.setID != "" {
					rr.SetIdentifier, rr.Weight = ptr(k.setID), ptr(int64(1))
				}
				c.put(rr)
			}
			if c.count() != len(want) {
				t.Fatalf("%s, step %d: count %d, want %d", name, step, c.count(), len(want))
			}
			for _, k := range pool {
				s, ok := c.lookup(k)
				if v, in := want[k]; ok != in || ok && s.values[0] != v {
					t.Fatalf("%s, step %d: %v gives %v, %v; want %q, %v", name, step, k, s.values, ok, v, in)
				}
			}
			x := &c.index
			mask := len(x.slots) - 1
			for i, pos := range x.slots {
				if (pos == 0) != (x.tags[i] == 0) {
					t.Fatalf("%s, step %d: slot %d holds %d with tag %x", name, step, i, pos, x.tags[i])
				}
				if pos == 0 {
					continue
				}
				h := c.hash(c.keyOf(&c.entries[pos-1]))
				if x.tags[i] != tagOf(h) {
					t.Fatalf("%s, step %d: slot %d's tag %x, its key's %x", name, step, i, x.tags[i], tagOf(h))
				}
				for j := int(h) & mask; j != i; j = (j + 1) & mask {
					if x.slots[j] == 0 {
						t.Fatalf("%s, step %d: slot %d is not reachable from its home %d (slot %d empty)", name, step, i, int(h)&mask, j)
					}
				}
			}
		}
	}
}
