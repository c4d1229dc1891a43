package sourcetest

import (
	"slices"
	"testing"
	"time"
)

// ExpectNamed reads the resource labels an ObjectSource's object handler sends on named until as
// many as want have come, and fails unless they are want, in any order: an event naming every object
// (""), one naming another object, or too few within 30 seconds fail. It returns them, sorted.
func ExpectNamed(t testing.TB, named <-chan string, what string, want ...string) []string {
	t.Helper()
	var got []string
	deadline := time.After(30 * time.Second)
	for len(got) < len(want) {
		select {
		case r := <-named:
			if r == "" {
				t.Fatalf("%s named every object", what)
			}
			got = append(got, r)
		case <-deadline:
			t.Fatalf("%s: named %q, want %q", what, got, want)
		}
	}
	slices.Sort(got)
	if want = slices.Sorted(slices.Values(want)); !slices.Equal(got, want) {
		t.Fatalf("%s: named %q, want %q", what, got, want)
	}
	return got
}
