package testbed

import "runtime"

// LiveHeap is the heap in use after two collections (runtime.MemStats.HeapAlloc): the second frees
// what the first left to finalizers. Memory tests and benchmarks read it before and after building
// what they measure, keep that alive past the second read (runtime.KeepAlive), and divide the
// difference by what they built.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
