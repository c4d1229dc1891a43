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
// which runs on the caller's, and returns once all have returned.
func inParts(parts int, do func(part int)) {
	var wg sync.WaitGroup
	for part := 1; part < parts; part++ {
		wg.Go(func() { do(part) })
	}
	do(0)
	wg.Wait()
}
