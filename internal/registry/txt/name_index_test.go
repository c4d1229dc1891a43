package txt

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestNameIndexIsAMapByName: the cache's open-addressed index (nameIndex) must answer as a map by
// lower-cased name would, over random sets and deletions of names spelled as providers spell them
// (upper case, a trailing dot, non-ASCII, compact ownership TXTs that keep no endpoint). Two pools:
// a few names churned in a table that never grows, which crowds its slots and wraps clusters round
// its end (deletion moves entries back), and many names, which make it grow.
func TestNameIndexIsAMapByName(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	spell := func(key string) string {
		b := []byte(key)
		for i := range b {
			if 'a' <= b[i] && b[i] <= 'z' && rnd.Intn(3) == 0 {
				b[i] -= 'a' - 'A'
			}
		}
		if rnd.Intn(2) == 0 {
			return string(b) + "."
		}
		return string(b)
	}
	entryFor := func(key string) *entry {
		if rnd.Intn(2) == 0 {
			return &entry{own: &ownership{name: spell(key)}} // compact: its name is the ownership's
		}
		return &entry{ep: endpoint.New(spell(key), endpoint.RecordTypeA, "192.0.2.1")}
	}
	for _, pool := range []struct{ names, live, ops int }{{40, 6, 20000}, {5000, 4000, 40000}} {
		keys := make([]string, pool.names)
		for i := range keys {
			keys[i] = fmt.Sprintf("host-%d.example.com", i)
			if i%7 == 0 {
				keys[i] = fmt.Sprintf("bücher-%d.example.com", i) // lower-cased already, as keys are
			}
		}
		x, want := newNameIndex(0), map[string]*entry{}
		for op := range pool.ops {
			key := keys[rnd.Intn(len(keys))]
			switch {
			case len(want) < pool.live && rnd.Intn(3) > 0, want[key] != nil && rnd.Intn(2) == 0:
				en := entryFor(key)
				x.set(key, en)
				want[key] = en
			default:
				x.del(key)
				delete(want, key)
			}
			probe := keys[rnd.Intn(len(keys))]
			if got := x.get(probe); got != want[probe] {
				t.Fatalf("op %d, %d names: get(%q) = %v, want %v", op, len(want), probe, got, want[probe])
			}
		}
		if pool.live < minIndexSlots && len(x.heads) != minIndexSlots {
			t.Errorf("%d slots for at most %d names, want %d", len(x.heads), pool.live, minIndexSlots)
		}
		seen := map[*entry]bool{}
		for first := range x.firsts() {
			seen[first] = true
		}
		if len(seen) != len(want) || x.used != len(want) {
			t.Errorf("%d firsts, %d used, want %d", len(seen), x.used, len(want))
		}
		for key, en := range want {
			if x.get(key) != en || !seen[en] {
				t.Errorf("%s: lost", key)
			}
			if x.get(strings.ToUpper(key)) != nil {
				t.Errorf("%s: found under its upper-case spelling, keys are lower-cased", key)
			}
		}
	}
}
