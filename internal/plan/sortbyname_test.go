package plan

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestSortByNameAgreesWithSortFunc sorts random lists with sortByName and with slices.SortFunc and
// wants the same order. The names are drawn so that every path shows: long shared prefixes (runs
// sorted again eight bytes further on, and again), names that are prefixes of others, zero bytes (which
// the padding of a short name must not be confused with), upper and non-ASCII bytes (the high bit of a
// prefix), runs longer and shorter than smallRun, and many entries of one name (ordered by the
// second field).
func TestSortByNameAgreesWithSortFunc(t *testing.T) {
	type item struct {
		name string
		n    int
	}
	compare := func(a, b item) int { return cmp.Or(strings.Compare(a.name, b.name), cmp.Compare(a.n, b.n)) }
	rng := rand.New(rand.NewSource(15))
	alphabets := []string{"ab", "a\x00", "aZ\xff", "abcdefghijklmnopqrstuvwxyz.-0123456789"}
	prefixes := []string{"", "svc-", "a-shared-prefix-", "a-shared-prefix-longer-than-sixteen-bytes."}
	var s nameSorter // reused across lists, as result does
	for round := range 400 {
		n := rng.Intn(300)
		if round%50 == 0 {
			n = 5000
		}
		alphabet := alphabets[rng.Intn(len(alphabets))]
		prefix := prefixes[rng.Intn(len(prefixes))]
		maxLen := 1 + rng.Intn(24)
		list := make([]item, n)
		for i := range list {
			b := []byte(prefix)
			for range rng.Intn(maxLen + 1) {
				b = append(b, alphabet[rng.Intn(len(alphabet))])
			}
			list[i] = item{name: string(b), n: rng.Intn(4)}
		}
		want := slices.Clone(list)
		slices.SortFunc(want, compare)
		sortByName(&s, list, func(it item) string { return it.name }, compare)
		if !slices.Equal(list, want) {
			for i := range list {
				if list[i] != want[i] {
					t.Fatalf("round %d (%d items, alphabet %q, prefix %q): at %d got %s, want %s", round, n, alphabet, prefix, i,
						fmt.Sprintf("%q/%d", list[i].name, list[i].n), fmt.Sprintf("%q/%d", want[i].name, want[i].n))
				}
			}
		}
	}
}
