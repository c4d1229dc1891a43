package rfc2136

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
)

// TXT targets follow dnstext's zone-file rules, as external-dns's rfc2136 provider treats them: an
// ownership value "\"heritage=…\"" is stored as the string heritage=… (the quotes are delimiters), so
// external-dns reads zonekeeper's records as its own and the other way round; raw text is stored as its
// own bytes (external-dns splits it at spaces instead; see README).

// txtStrings turns a target into miekg/dns TXT strings, which hold the presentation form: '"' and '\'
// escaped, bytes outside printable ASCII as \DDD.
func txtStrings(target string) []string {
	raw := dnstext.Strings(target)
	out := make([]string, len(raw))
	for i, s := range raw {
		out[i] = escapeTXT(s)
	}
	return out
}

func escapeTXT(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			b.WriteByte('\\')
			b.WriteByte('0' + c/100)
			b.WriteByte('0' + c/10%10)
			b.WriteByte('0' + c%10)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// txtText turns the strings of a TXT record read from the wire back into the target.
func txtText(strs []string) string {
	raw := make([]string, len(strs))
	for i, s := range strs {
		raw[i] = dnstext.Unescape(s)
	}
	return dnstext.Target(raw)
}
