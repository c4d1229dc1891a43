package plan

import "slices"

// Splice returns what a plan of everything reports when r was one and since then only the names
// that inScope accepts (NameKey spellings) changed, part being a plan of those names alone: r's
// conflicts, owner mismatches and held changes at other names, part's at those, in the order
// Calculate gives. It holds because every row of a plan is one name: nothing at one name decides
// anything at another. The changes are part's.
func (r Result) Splice(part Result, inScope func(nameKey string) bool) Result {
	return Result{
		Changes:         part.Changes,
		Conflicts:       spliced(r.Conflicts, part.Conflicts, inScope, conflictName, compareConflicts),
		OwnerMismatches: spliced(r.OwnerMismatches, part.OwnerMismatches, inScope, mismatchName, compareMismatches),
		HeldByPolicy:    spliced(r.HeldByPolicy, part.HeldByPolicy, inScope, heldName, compareHeld),
	}
}

// spliced is outside's entries at names out of scope and inside's at names in scope, sorted by
// compare. It is nil when both are empty, as Calculate's lists are.
func spliced[T any](outside, inside []T, inScope func(string) bool, name func(T) string, compare func(a, b T) int) []T {
	var out []T
	for _, x := range outside {
		if !inScope(NameKey(name(x))) {
			out = append(out, x)
		}
	}
	for _, x := range inside {
		if inScope(NameKey(name(x))) {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, compare)
	return out
}
