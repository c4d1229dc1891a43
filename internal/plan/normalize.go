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
	if endpoint.IsASCII(n) {
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
