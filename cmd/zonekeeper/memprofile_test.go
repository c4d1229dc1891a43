package main

import (
	"runtime"
	"testing"
)

// The command keeps no heap profile: nothing in it serves one, and the profiler's tables are resident
// memory (main.go).
func TestTheCommandKeepsNoHeapProfile(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Fatalf("runtime.MemProfileRate is %d in the zonekeeper command, want 0", runtime.MemProfileRate)
	}
}
