package pdns

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
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
func unquoteTXT(content string) ([]string, error) {
	var out []string
	s := content
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		var b strings.Builder
		quoted := s[0] == '"'
		i := 0
		if quoted {
			i = 1
		}
		closed := false
		for i < len(s) {
			c := s[i]
			if c == '\\' {
				if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
					n := int(s[i+1]-'0')*100 + int(s[i+2]-'0')*10 + int(s[i+3]-'0')
					if n > 255 {
						return nil, errors.New("escape \\" + s[i+1:i+4] + " is above 255")
					}
					b.WriteByte(byte(n))
					i += 4
					continue
				}
				if i+1 >= len(s) {
					return nil, errors.New("dangling backslash")
				}
				b.WriteByte(s[i+1])
				i += 2
				continue
			}
			if quoted && c == '"' {
				closed = true
				i++
				break
			}
			if !quoted && (c == ' ' || c == '\t') {
				break
			}
			b.WriteByte(c)
			i++
		}
		if quoted && !closed {
			return nil, errors.New("unterminated quoted string")
		}
		out = append(out, b.String())
		s = s[i:]
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
