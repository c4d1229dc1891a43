package aws

import (
	"strconv"
	"strings"
)

// Route 53 stores TXT and SPF values in presentation form: one or more quoted character-strings of at
// most 255 bytes, with \" \\ and \ooo escapes, and rejects anything unquoted. Endpoints carry text:
//
//   - a target that already is presentation form (external-dns's TXT registry writes
//     "\"heritage=external-dns,…\"", and external-dns users write quoted SPF values for Route 53) is
//     sent as it is, exactly as external-dns sends it;
//   - any other target is quoted, split into 255-byte strings and escaped.
//
// Reading reverses the second rule: a value is returned as its text (strings joined), except an
// ownership value (one plain quoted string starting with heritage=), which is returned with its quotes
// as external-dns returns it, so the zone reads the same to both. AdjustEndpoints puts desired TXT
// targets through the same round trip (txtCanonical), so a quoted and an unquoted desired target both
// compare equal to what Records returns and never churn.

const maxTXTString = 255

// txtValue is the Route 53 value for a TXT target.
func txtValue(target string) string {
	if _, ok := parseTXT(target); ok {
		return target
	}
	return quoteTXT(target)
}

// txtTarget is the endpoint target for a Route 53 TXT value.
func txtTarget(value string) string {
	if isOwnershipValue(value) {
		return value // what the rules below return for it, without decoding it first
	}
	text, ok := parseTXT(value)
	if !ok {
		return value
	}
	return text
}

// txtCanonical is the target Records will return once target is written.
func txtCanonical(target string) string { return txtTarget(txtValue(target)) }

func isOwnershipValue(v string) bool {
	return len(v) >= 2 && strings.HasPrefix(v, `"heritage=`) && strings.HasSuffix(v, `"`) &&
		!strings.ContainsAny(v[1:len(v)-1], `"\`)
}

// quoteTXT quotes raw text: 255-byte strings, `"` and `\` escaped, bytes outside printable ASCII as \ooo.
func quoteTXT(v string) string {
	if v == "" {
		return `""`
	}
	var b strings.Builder
	for len(v) > 0 {
		n := min(len(v), maxTXTString)
		chunk := v[:n]
		v = v[n:]
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		for i := 0; i < len(chunk); i++ {
			c := chunk[i]
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 || c >= 0x7f:
				o := strconv.FormatInt(int64(c), 8)
				b.WriteByte('\\')
				b.WriteString(strings.Repeat("0", 3-len(o)))
				b.WriteString(o)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	}
	return b.String()
}

// parseTXT reads presentation form: quoted strings separated by spaces, each at most 255 bytes once
// decoded. ok is false for anything else (an unquoted word, an unterminated string).
func parseTXT(v string) (string, bool) {
	if !strings.HasPrefix(v, `"`) {
		return "", false
	}
	var out strings.Builder
	s := v
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return out.String(), true
		}
		if s[0] != '"' {
			return "", false
		}
		n := 0
		i := 1
		closed := false
		for i < len(s) {
			c := s[i]
			if c == '\\' {
				if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
					// Route 53 writes octal; a value with digits 8 or 9 is not one of ours.
					if !isOctal(s[i+1]) || !isOctal(s[i+2]) || !isOctal(s[i+3]) {
						return "", false
					}
					out.WriteByte(byte(int(s[i+1]-'0')*64 + int(s[i+2]-'0')*8 + int(s[i+3]-'0')))
					i += 4
				} else if i+1 < len(s) {
					out.WriteByte(s[i+1])
					i += 2
				} else {
					return "", false
				}
				n++
				continue
			}
			if c == '"' {
				closed = true
				i++
				break
			}
			out.WriteByte(c)
			n++
			i++
		}
		if !closed || n > maxTXTString {
			return "", false
		}
		s = s[i:]
		if s != "" && s[0] != ' ' {
			return "", false
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
