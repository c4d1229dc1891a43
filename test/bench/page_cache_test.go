package bench

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDropFromPageCacheLeavesNoPageResident writes a file (its pages then sit in the page cache,
// dirty) and checks that dropFromPageCache leaves none of them there, as startTool needs for each
// binary it runs.
func TestDropFromPageCacheLeavesNoPageResident(t *testing.T) {
	path := filepath.Join(t.TempDir(), "binary")
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	before, total, err := residentPages(path)
	if err != nil {
		t.Fatal(err)
	}
	if before == 0 {
		t.Skipf("the file system of %s keeps no page cache for a written file (tmpfs would keep all): nothing to check", path)
	}
	if err := dropFromPageCache(path); err != nil {
		t.Fatal(err)
	}
	after, _, err := residentPages(path)
	if err != nil {
		t.Fatal(err)
	}
	if after != 0 {
		t.Fatalf("%d of %d pages still in the page cache after dropFromPageCache (%d before)", after, total, before)
	}
}
