package plan

import (
	"runtime"
	"sync"
)

// minPartEndpoints is the fewest endpoints worth a part of their own: below about 10^4 a plan takes a
// few milliseconds, and starting goroutines and joining their lists would be most of what a part saves.
const minPartEndpoints = 20_000

// maxParts bounds the goroutines of one plan.
const maxParts = 8

// partsFor is how many parts a plan of n endpoints reads and plans at once: one per processor Go may
// use, with at least minPartEndpoints endpoints each. Reading the input is mostly waiting for memory,
// and each part waits for its own reads at the same time as the others.
func partsFor(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/minPartEndpoints, maxParts))
}

// inParts calls do(part) for each part from 0 to parts-1, each on its own goroutine but the first,
// which runs on the caller's, and returns once all have returned. A panic in any part is raised again
// on the caller's goroutine, as it would be with one part, rather than ending the program from
// another goroutine.
func inParts(parts int, do func(part int)) {
	if parts == 1 {
		do(0)
		return
	}
	var wg sync.WaitGroup
	panics := make([]any, parts)
	for part := 1; part < parts; part++ {
		wg.Go(func() {
			defer func() { panics[part] = recover() }()
			do(part)
		})
	}
	do(0)
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}
