package plan

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestGroupNamesAgreesWithAMap compares the grouping with the obvious map over random lists, with
// real hashes and with hashes made to collide (all equal, or a few values for many names), so that a
// name is never merged with another on its hash alone and the numbering is by first appearance.
func TestGroupNamesAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	hashings := map[string]func(string) uint32{
		"all equal": func(string) uint32 { return 42 },
		"by length": func(s string) uint32 { return uint32(len(s)) * 0x9e3779b9 },
		"few top bits": func(s string) uint32 {
			return uint32(len(s)%3)<<30 | uint32(len(s)%5)
		},
	}
	for _, n := range []int{0, 1, 2, 7, 100, 129, 1000, 20000} {
		names := make([]string, n)
		for k := range names {
			names[k] = fmt.Sprintf("n-%d.example.com", rng.Intn(max(1, n/3)))
		}
		check := func(desc string, group []int32, distinct []string) {
			t.Helper()
			want := map[string]int32{}
			var wantDistinct []string
			for k, name := range names {
				g, ok := want[name]
				if !ok {
					g = int32(len(wantDistinct))
					want[name] = g
					wantDistinct = append(wantDistinct, name)
				}
				if group[k] != g {
					t.Fatalf("%d names, %s: names[%d]=%q in group %d, want %d", n, desc, k, name, group[k], g)
				}
			}
			if !slices.Equal(distinct, wantDistinct) {
				t.Fatalf("%d names, %s: distinct %q, want %q", n, desc, distinct, wantDistinct)
			}
		}
		for _, parts := range []int{1, 2, 3} {
			group, distinct := groupNames(slices.Clone(names), parts) // groupNames overwrites its list
			check(fmt.Sprintf("maphash, %d parts", parts), group, distinct)
		}
		if n > 2000 {
			continue // the colliding hashes make the tables quadratic
		}
		for desc, hash := range hashings {
			hashes := make([]uint32, n)
			for k, name := range names {
				hashes[k] = hash(name)
			}
			for _, parts := range []int{1, 2, 3} {
				group, distinct := groupByHash(slices.Clone(names), hashes, parts)
				check(fmt.Sprintf("%s, %d parts", desc, parts), group, distinct)
			}
		}
	}
}
