package deploy

import (
	"io"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/config"
)

// pendingFlags are flags the chart passes that zonekeeper's command line does not have yet. When one
// lands, checkFlagsKnown fails until it is removed from this list, so the list cannot go stale. (The
// AWS flags it once held landed with the aws provider.)
var pendingFlags = map[string]bool{}

// checkFlagsKnown fails the test for an argument that zonekeeper would reject as an unknown flag: a
// chart that renders fine but passes a flag the binary lacks crash-loops in the cluster.
func checkFlagsKnown(t testing.TB, args []string) {
	t.Helper()
	cfg := config.Default()
	fs := config.NewFlagSet("zonekeeper", &cfg, io.Discard)
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			t.Errorf("argument %q is not a --flag", a)
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		known := fs.Lookup(name) != nil
		switch {
		case known && pendingFlags[name]:
			t.Errorf("--%s is now a zonekeeper flag: remove it from pendingFlags", name)
		case !known && !pendingFlags[name]:
			t.Errorf("--%s is not a zonekeeper flag", name)
		}
	}
}
