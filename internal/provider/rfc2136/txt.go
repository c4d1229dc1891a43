package rfc2136

import (
	"strings"
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
		b.WriteString(unescapeTXT(s))
	}
	return b.String()
}

func unescapeTXT(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			b.WriteByte((s[i+1]-'0')*100 + (s[i+2]-'0')*10 + (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
