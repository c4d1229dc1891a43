package sourcetest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// ObjectEndpointsMatch checks, for each resource label, that src's ObjectEndpoints of that object
// alone covers it and gives exactly what Endpoints publishes at every name of its answer and for
// every object it covers: what an event's plan reads equals the full listing there.
func ObjectEndpointsMatch(t testing.TB, src source.ObjectSource, resources []string) {
	t.Helper()
	ctx := context.Background()
	full, err := src.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fullLines := Describe(full.Endpoints)
	for _, r := range resources {
		res, err := src.ObjectEndpoints(ctx, []string{r})
		if err != nil {
			t.Fatalf("ObjectEndpoints(%s): %v", r, err)
		}
		if !slices.Contains(res.Objects, r) {
			t.Fatalf("ObjectEndpoints(%s) covers %v, not itself", r, res.Objects)
		}
		got := Describe(res.Endpoints)
		var want []string
		for _, line := range fullLines {
			name, _, _ := strings.Cut(line, " ")
			atName := slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, name+" ") })
			ofObject := slices.ContainsFunc(res.Objects, func(o string) bool {
				return strings.Contains(line+" ", " "+o+" ")
			})
			if atName || ofObject {
				want = append(want, line)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ObjectEndpoints(%s):\n got %q\nwant %q (Endpoints at the same names and objects)", r, got, want)
		}
	}
}
