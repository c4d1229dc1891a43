package route53emu

import (
	"fmt"
	"strings"
)

// nameError explains why a DNS name cannot be stored. Reason is an AWS-style
// problem code such as "DomainLabelEmpty".
type nameError struct {
	Reason string
	Text   string
}

func (e *nameError) Error() string { return fmt.Sprintf("%s (%s)", e.Reason, e.Text) }

// decodeName turns a name as a client sent it (optional trailing dot, `\ooo`
// octal escapes, `\X` literal escapes) into its raw labels, lower-cased the way
// Route 53 stores them. A literal "." separates labels; an escaped one does not.
func decodeName(s string) ([][]byte, error) {
	if s == "" {
		return nil, &nameError{"DomainLabelEmpty", "Domain label is empty"}
	}
	if s == "." {
		return nil, nil
	}
	var labels [][]byte
	var cur []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
				v := int(s[i+1]-'0')*64 + int(s[i+2]-'0')*8 + int(s[i+3]-'0')
				if v > 255 {
					return nil, &nameError{"InvalidEscape", "Escape sequence is out of range"}
				}
				cur = append(cur, byte(v))
				i += 3
			} else if i+1 < len(s) {
				cur = append(cur, s[i+1])
				i++
			} else {
				return nil, &nameError{"InvalidEscape", "Name ends with a backslash"}
			}
		case c == '.':
			if len(cur) == 0 {
				return nil, &nameError{"DomainLabelEmpty", "Domain label is empty"}
			}
			labels = append(labels, cur)
			cur = nil
		default:
			cur = append(cur, c)
		}
	}
	if len(cur) > 0 {
		labels = append(labels, cur)
	}
	for _, l := range labels {
		for j, b := range l {
			if b >= 'A' && b <= 'Z' {
				l[j] = b + ('a' - 'A')
			}
		}
		if len(l) > 63 {
			return nil, &nameError{"DomainLabelTooLong", "Domain label is too long"}
		}
	}
	wire := 1
	for _, l := range labels {
		wire += len(l) + 1
	}
	if wire > 255 {
		return nil, &nameError{"DomainNameTooLong", "Domain name is too long"}
	}
	return labels, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// escapeLabel writes a raw label in Route 53's output form: a–z, 0–9, '-' and
// '_' as they are, every other byte as a three-digit octal escape.
func escapeLabel(b *strings.Builder, l []byte) {
	for _, c := range l {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(b, "\\%03o", c)
		}
	}
}

// normalizeName returns the canonical stored form of a name: lower case,
// escaped, with a trailing dot ("*.Example.com" → "\052.example.com.").
func normalizeName(s string) (string, error) {
	labels, err := decodeName(s)
	if err != nil {
		return "", err
	}
	if len(labels) == 0 {
		return ".", nil
	}
	var b strings.Builder
	for _, l := range labels {
		escapeLabel(&b, l)
		b.WriteByte('.')
	}
	return b.String(), nil
}

// mustNormalize is for names the emulator built itself or already validated.
func mustNormalize(s string) string {
	n, err := normalizeName(s)
	if err != nil {
		return strings.ToLower(s)
	}
	return n
}

// sortKey is the name with its labels reversed, as Route 53 orders
// ListResourceRecordSets: "www.example.com." → "com.example.www.". It works on
// the escaped form, where no label contains a literal dot.
func sortKey(normalized string) string {
	trimmed := strings.TrimSuffix(normalized, ".")
	if trimmed == "" {
		return "."
	}
	parts := strings.Split(trimmed, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "."
}

// inZone reports whether a normalised name is the zone apex or below it, on a
// label boundary ("badexample.com." is not in "example.com.").
func inZone(name, zone string) bool {
	return name == zone || strings.HasSuffix(name, "."+zone)
}

// isWildcard reports whether the leftmost label is exactly "*".
func isWildcard(normalized string) bool {
	return strings.HasPrefix(normalized, `\052.`)
}
