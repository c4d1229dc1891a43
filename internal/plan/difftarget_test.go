package plan

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestSameTargetAgreesWithSame: the allocation-free comparison of one-target lists decides exactly as
// Targets.Same does, whenever it decides.
func TestSameTargetAgreesWithSame(t *testing.T) {
	targets := []string{
		"10.0.0.1", "10.0.0.2", "10.0.0.1.", "::ffff:10.0.0.1", "::FFFF:10.0.0.1", "2001:db8::1", "2001:DB8::1",
		"2001:0db8:0000::1", "2001:db8::2", "fe80::1%eth0", "fe80::1%eth1", "fe80::1", "lb.example.com",
		"LB.Example.COM.", "lb.example.com..", "lb.example.co", "lb-old.example.com", "", ".", "bücher.example",
		"BÜCHER.example", "K.example", "\u212a.example", "s", "\u017f", "1.2.3.4 ", "\"text\"",
	}
	decided := 0
	for _, a := range targets {
		for _, b := range targets {
			want := endpoint.Targets{a}.Same(endpoint.Targets{b})
			same, known := sameTarget(a, b)
			if known {
				decided++
				if same != want {
					t.Errorf("sameTarget(%q, %q) = %v, Targets.Same says %v", a, b, same, want)
				}
			}
			if got := sameTargets(endpoint.Targets{a}, endpoint.Targets{b}); got != want {
				t.Errorf("sameTargets(%q, %q) = %v, Targets.Same says %v", a, b, got, want)
			}
		}
	}
	if decided < len(targets)*len(targets)/3 { // the rest pair an address with a name, or are not ASCII
		t.Errorf("the fast path decided only %d of %d pairs", decided, len(targets)*len(targets))
	}
}
