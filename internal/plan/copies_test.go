package plan

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestCopySlabIsNoLongerThanItsRows: a planner of a few rows (an event's plan of one name) cuts its
// copies from an array as short as its rows, not from one of minSlabChunk endpoints; a large one
// still from arrays of minSlabChunk and more.
func TestCopySlabIsNoLongerThanItsRows(t *testing.T) {
	e := endpoint.New("a.example.com", endpoint.RecordTypeA, "192.0.2.1")
	small := newCopySlab(2)
	small.copyOf(e)
	if got := len(small.endpoints) + 1; got > 2 {
		t.Fatalf("a slab for 2 entries made an array of %d endpoints", got)
	}
	small.copyOf(e)
	if len(small.endpoints) != 0 {
		t.Fatalf("a slab for 2 entries has %d endpoints to spare after 2 copies", len(small.endpoints))
	}
	large := newCopySlab(10_000)
	large.copyOf(e)
	if got := len(large.endpoints) + 1; got != minSlabChunk {
		t.Fatalf("a slab for 10,000 entries made a first array of %d endpoints, want %d", got, minSlabChunk)
	}
}
