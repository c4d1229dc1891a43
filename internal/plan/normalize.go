package plan

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// nameKey returns the form of a DNS name used to compare names: lower case, no trailing dot, punycode
// for non-ASCII labels. It never fails: a name endpoint.NormalizeDNSName rejects is only lower-cased,
// so that a malformed record listed by a provider still lands in its own row instead of vanishing.
//
// ASCII names, nearly all of them, take a path that allocates only when the name has upper case.
func nameKey(name string) string {
	n := strings.TrimSuffix(strings.TrimSpace(name), ".")
	if ascii, upper := scanName(n); ascii {
		if !upper {
			return n
		}
		return strings.ToLower(n)
	}
	if norm, err := endpoint.NormalizeDNSName(n); err == nil {
		return norm
	}
	return strings.ToLower(n)
}

// NameKey is the form in which the plan compares names: two endpoints share a row exactly when their
// NameKeys are equal.
func NameKey(name string) string { return nameKey(name) }

// scanName reports whether s is ASCII and, if so, whether it has upper-case letters, eight bytes at a
// time: the plan asks this of every name it is given, and names are nearly always lower-case ASCII.
func scanName(s string) (ascii, upper bool) {
	const high = 0x8080808080808080
	var up uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if x&high != 0 {
			return false, false
		}
		// With every byte below 0x80 neither sum carries into the next byte: a byte's high bit is
		// set in the first sum when it is 'A' or above, in the second when it is above 'Z'.
		up |= (x + 0x3f3f3f3f3f3f3f3f) &^ (x + 0x2525252525252525)
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return false, false
		case 'A' <= c && c <= 'Z':
			up |= high
		}
	}
	return true, up&high != 0
}
