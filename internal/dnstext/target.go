package dnstext

import (
	"strings"
	"unicode/utf8"
)

// MaxString is the longest character-string of a TXT record (RFC 1035 §3.3).
const MaxString = 255

// The TXT target rules for servers that take zone-file presentation (BIND through RFC 2136, PowerDNS
// through its API), the same as external-dns's providers for them, so that a zone reads the same to
// both tools and either can take over from the other:
//
//   - a target in presentation form — one or more quoted character-strings, as the TXT registry writes
//     ownership values ("\"heritage=external-dns,…\"") and as external-dns users write SPF values — stands
//     for those strings: the quotes are delimiters, not data;
//   - any other target stands for its own bytes, split into strings of at most 255 bytes (external-dns
//     refuses or mangles these; zonekeeper keeps them exact).
//
// Reading reverses the second rule (the strings are joined), except for an ownership value — one
// string starting with heritage=, without quotes or backslashes — which is returned quoted, as the TXT
// registry writes it and as external-dns reads it. Canonical is the round trip; a provider puts desired
// TXT targets through it (AdjustEndpoints) so that planning compares like with like.

// Strings returns the character-strings (raw bytes) a TXT target stands for.
func Strings(target string) []string {
	if strs, ok := parseQuoted(target); ok {
		return strs
	}
	return split(target)
}

// Target returns the endpoint target for the character-strings of a stored TXT record.
func Target(strs []string) string {
	if len(strs) == 1 && isOwnership(strs[0]) {
		return `"` + strs[0] + `"`
	}
	return strings.Join(strs, "")
}

// Canonical is the target that reading returns once target has been written.
func Canonical(target string) string { return Target(Strings(target)) }

func isOwnership(s string) bool {
	return strings.HasPrefix(s, "heritage=") && !strings.ContainsAny(s, `"\`)
}

// split cuts raw text into strings of at most MaxString bytes, without cutting a UTF-8 sequence when
// the text is valid UTF-8.
func split(text string) []string {
	if text == "" {
		return []string{""}
	}
	var out []string
	valid := utf8.ValidString(text)
	for len(text) > 0 {
		n := min(len(text), MaxString)
		if n < len(text) && valid {
			for n > 0 && !utf8.RuneStart(text[n]) {
				n--
			}
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}
