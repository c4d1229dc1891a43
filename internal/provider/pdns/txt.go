package pdns

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
)

// maxTXTString is the longest character-string of a TXT record (RFC 1035 3.3).
const maxTXTString = 255

// quoteTXT turns an endpoint's TXT target (raw bytes, quotes and commas included, as the TXT
// registry writes them) into PowerDNS content: one or more quoted character-strings of at most 255
// bytes, with `"` and `\` escaped and control bytes as \DDD. Bytes of valid UTF-8 are sent as they are
// (readable in the PowerDNS database and UIs); a string that is not valid UTF-8 is sent with every
// byte above 0x7e as \DDD, so the JSON encoder never replaces a byte and the value round-trips exactly.
func quoteTXT(v string) string {
	var b strings.Builder
	b.Grow(len(v) + 8)
	if v == "" {
		return `""`
	}
	for len(v) > 0 {
		n := min(len(v), maxTXTString)
		// Do not cut a UTF-8 sequence when the whole value is UTF-8: keep the chunks valid too.
		if n < len(v) && utf8.ValidString(v) {
			for n > 0 && !utf8.RuneStart(v[n]) {
				n--
			}
		}
		chunk := v[:n]
		v = v[n:]
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		escapeHigh := !utf8.ValidString(chunk)
		b.WriteByte('"')
		for i := 0; i < len(chunk); i++ {
			c := chunk[i]
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c == 0x7f || (c > 0x7f && escapeHigh):
				b.WriteByte('\\')
				d := strconv.Itoa(int(c))
				b.WriteString(strings.Repeat("0", 3-len(d)))
				b.WriteString(d)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

// unquoteTXT reads PowerDNS TXT content: character-strings, quoted or bare, separated by white space,
// with \X and \DDD escapes.
func unquoteTXT(content string) ([]string, error) { return dnstext.ParseStrings(content) }
