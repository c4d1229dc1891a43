package txt

import (
	"sort"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

const (
	heritage      = "external-dns"
	heritageToken = "heritage=" + heritage
	labelPrefix   = heritage + "/"
)

// inMemoryLabel reports whether a label lives only in memory and must never reach a TXT value.
func inMemoryLabel(key string) bool {
	return key == endpoint.TxtEncryptionNonce
}

// serializeLabels writes the plain label string: heritage first, then every persisted label in sorted
// key order. It carries no quotes; quoting happens once the value is final (plain or encrypted).
func serializeLabels(labels endpoint.Labels) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		if !inMemoryLabel(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(heritageToken)
	for _, k := range keys {
		b.WriteString(",")
		b.WriteString(labelPrefix)
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(labels[k])
	}
	return b.String()
}

// quote wraps a value in double quotes: external-dns stores the quotes as part of the text for every
// provider (on CoreDNS they are served inside the TXT string), so we write them too.
func quote(s string) string { return `"` + s + `"` }

// unquote drops surrounding quotes; values read back from providers may or may not keep them.
func unquote(s string) string { return strings.Trim(s, `"`) }

// internedLabelKey returns the package constant for the label keys every record carries, so that
// the cache holds one copy of them and a lookup by the constant (Endpoint.Owner) compares pointers
// instead of reading the TXT value the key was parsed from.
func internedLabelKey(key string) string {
	switch key {
	case endpoint.OwnerLabelKey:
		return endpoint.OwnerLabelKey
	case endpoint.ResourceLabelKey:
		return endpoint.ResourceLabelKey
	}
	return key
}

// parseLabels reads a plain label string. ok is false unless it says heritage=external-dns: anything
// else is an ordinary TXT that nobody owns. Tokens that are not a single key=value pair are skipped, as
// external-dns skips them.
func parseLabels(text string) (labels endpoint.Labels, ok bool) {
	labels = endpoint.Labels{}
	for token := range strings.SplitSeq(unquote(text), ",") {
		key, value, found := strings.Cut(token, "=")
		if !found || strings.Contains(value, "=") {
			continue
		}
		if key == "heritage" {
			if value != heritage {
				return nil, false
			}
			ok = true
			continue
		}
		if name, isLabel := strings.CutPrefix(key, labelPrefix); isLabel {
			labels[internedLabelKey(name)] = value
		}
	}
	if !ok {
		return nil, false
	}
	return labels, true
}
