package provider

import (
	"errors"
	"fmt"
	"testing"
)

func TestUnreadableZonesCovers(t *testing.T) {
	e := &UnreadableZonesError{
		Zones:    []UnreadableZone{{Name: "b.test", ID: "Z2", Err: errors.New("AccessDenied")}, {Name: "corp.a.test", ID: "Z4"}},
		Readable: []string{"a.test", "sub.b.test"},
	}
	for name, want := range map[string]bool{
		"b.test": true, "x.b.test": true, "X.B.TEST.": true, // in the unreadable zone
		"y.sub.b.test": false, "sub.b.test": false, // a readable zone below it holds these
		"a.test": false, "w.a.test": false, "h.corp.a.test": true, "c.test": false, "ab.test": false,
	} {
		if got := e.Covers(name); got != want {
			t.Errorf("Covers(%q) = %v, want %v", name, got, want)
		}
	}
	wrapped := fmt.Errorf("listing: %w", e)
	if got, ok := AsUnreadableZones(wrapped); !ok || got != e {
		t.Fatal("AsUnreadableZones must find the error inside a wrapped one")
	}
	if msg := e.Error(); msg != "2 zone(s) could not be listed and are left out of planning: zone b.test (Z2): AccessDenied; zone corp.a.test (Z4): <nil>" {
		t.Fatalf("message names each zone: %s", msg)
	}
}
