package rfc2136

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
)

// A TXT target is stored verbatim: its bytes are the record's text, split into strings of at most 255
// bytes, and reading joins them again. So an ownership value keeps its surrounding quotes, exactly as
// the TXT registry wrote it, and any text round-trips (external-dns instead parses the target as
// zone-file text, which splits unquoted text at spaces; see README).
const maxTXTString = 255

// txtStrings splits text into miekg/dns TXT strings, which hold the presentation form: '"' and '\'
// escaped, bytes outside printable ASCII as \DDD.
func txtStrings(text string) []string {
	if text == "" {
		return []string{""}
	}
	var out []string
	for len(text) > 0 {
		n := min(len(text), maxTXTString)
		out = append(out, escapeTXT(text[:n]))
		text = text[n:]
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

// txtText joins the strings of a TXT record read from the wire back into the target.
func txtText(strs []string) string {
	var b strings.Builder
	for _, s := range strs {
		b.WriteString(dnstext.Unescape(s))
	}
	return b.String()
}
