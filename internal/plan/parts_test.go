package plan

import (
	"sync/atomic"
	"testing"
)

// TestInPartsRunsEachPartAndRaisesItsPanic: every part runs once, and a panic in a part on another
// goroutine reaches the caller, after the other parts have finished, instead of ending the program.
func TestInPartsRunsEachPartAndRaisesItsPanic(t *testing.T) {
	for _, parts := range []int{1, 2, 5} {
		runs := make([]atomic.Int32, parts)
		inParts(parts, func(part int) { runs[part].Add(1) })
		for part := range runs {
			if n := runs[part].Load(); n != 1 {
				t.Fatalf("%d parts: part %d ran %d times", parts, part, n)
			}
		}
	}
	var finished atomic.Int32
	got := func() (got any) {
		defer func() { got = recover() }()
		inParts(3, func(part int) {
			if part == 2 {
				panic("part 2 failed")
			}
			finished.Add(1)
		})
		return nil
	}()
	if got != "part 2 failed" || finished.Load() != 2 {
		t.Fatalf("recovered %v with %d other parts finished; want part 2's panic after 2", got, finished.Load())
	}
}
