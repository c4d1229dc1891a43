package endpoint

import (
	"net/netip"
	"sort"
	"strings"
)

// Targets are the values of a record set: addresses, hostnames or record data.
type Targets []string

// normalized returns a target in the form used for comparison: lower case, no trailing dot, IPv6 in
// canonical form.
func normalizedTarget(t string) string {
	if addr, err := netip.ParseAddr(t); err == nil {
		return addr.Unmap().String()
	}
	return strings.ToLower(strings.TrimSuffix(t, "."))
}

// Same reports whether two target lists hold the same values, case-insensitively and in any order,
// comparing IPv6 addresses in canonical form.
func (t Targets) Same(o Targets) bool {
	if len(t) != len(o) {
		return false
	}
	a := make([]string, len(t))
	b := make([]string, len(o))
	for i := range t {
		a[i] = normalizedTarget(t[i])
		b[i] = normalizedTarget(o[i])
	}
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// IsLess orders target lists as external-dns does when it must choose between candidates: lists of IP
// addresses before lists with hostnames, then shorter lists, then lexical order of the sorted values.
func (t Targets) IsLess(o Targets) bool {
	ti, oi := t.allIPs(), o.allIPs()
	if ti != oi {
		return ti
	}
	if len(t) != len(o) {
		return len(t) < len(o)
	}
	a := append([]string(nil), t...)
	b := append([]string(nil), o...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func (t Targets) allIPs() bool {
	for _, v := range t {
		if _, err := netip.ParseAddr(v); err != nil {
			return false
		}
	}
	return true
}

// SuitableType returns the record type for a target: A for IPv4, AAAA for IPv6, CNAME otherwise.
func SuitableType(target string) string {
	addr, err := netip.ParseAddr(target)
	if err != nil {
		return RecordTypeCNAME
	}
	if addr.Is4() || addr.Is4In6() {
		return RecordTypeA
	}
	return RecordTypeAAAA
}
