package plan

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// needsUpdate is external-dns's update rule: targets differ, a configured desired TTL differs, or the
// provider-specific properties differ. An unset (0) desired TTL never causes an update, so a provider
// default TTL does not churn. Labels never cause an update.
func needsUpdate(desired, current *endpoint.Endpoint) bool {
	if !sameTargets(desired.Targets, current.Targets) {
		return true
	}
	if desired.RecordTTL.IsConfigured() && desired.RecordTTL != current.RecordTTL {
		return true
	}
	return !sameProviderSpecific(desired.ProviderSpecific, current.ProviderSpecific)
}

// sameTargets is Targets.Same with fast paths: most records in a steady state are byte-identical,
// most record sets have one target, and Same allocates and parses every time.
func sameTargets(a, b endpoint.Targets) bool {
	if slices.Equal(a, b) {
		return true
	}
	if len(a) == 1 && len(b) == 1 {
		if same, known := sameTarget(a[0], b[0]); known {
			return same
		}
	}
	return a.Same(b)
}

// sameTarget decides without allocating, where it can, what Targets.Same decides for two one-target
// lists: whether the targets' normalised forms are equal. Two addresses are compared as addresses
// (equal addresses are exactly those whose canonical forms are equal); two ASCII names that are not
// addresses are compared ignoring ASCII case and one trailing dot. known is false for anything else
// (an address beside a name, non-ASCII), which Same decides.
func sameTarget(a, b string) (same, known bool) {
	aa, aErr := netip.ParseAddr(a)
	ba, bErr := netip.ParseAddr(b)
	switch {
	case aErr == nil && bErr == nil:
		return aa.Unmap() == ba.Unmap(), true
	case aErr == nil || bErr == nil:
		return false, false
	}
	a, b = strings.TrimSuffix(a, "."), strings.TrimSuffix(b, ".")
	if len(a) != len(b) {
		return false, isASCII(a) && isASCII(b)
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x >= 0x80 || y >= 0x80 {
			return false, false
		}
		if x != y && lowerASCII(x) != lowerASCII(y) {
			if !isASCII(a[i:]) || !isASCII(b[i:]) {
				return false, false
			}
			return false, true
		}
	}
	return true, true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// sameProviderSpecific is endpoint.SameProviderSpecific with the same kind of fast path.
func sameProviderSpecific(a, b endpoint.ProviderSpecific) bool {
	return slices.Equal(a, b) || endpoint.SameProviderSpecific(a, b)
}
