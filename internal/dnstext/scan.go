package dnstext

import (
	"errors"
	"strings"
)

// token is one character-string of zone-file text.
type token struct {
	text   string
	quoted bool
	// glued: the next string follows without white space ("a"b).
	glued bool
}

// scan reads zone-file TXT text: character-strings, quoted or bare, separated by spaces or tabs, with
// \X and decimal \DDD escapes.
func scan(s string) ([]token, error) {
	var out []token
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		var b strings.Builder
		quoted := s[0] == '"'
		i, closed := 0, false
		if quoted {
			i = 1
		}
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
		s = s[i:]
		out = append(out, token{text: b.String(), quoted: quoted, glued: s != "" && s[0] != ' ' && s[0] != '\t'})
	}
}

// ParseStrings reads zone-file TXT text as servers print it (PowerDNS's record content):
// character-strings, quoted or bare, separated by white space, with \X and \DDD escapes.
func ParseStrings(s string) ([]string, error) {
	toks, err := scan(s)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.text
	}
	return out, nil
}

// parseQuoted reads presentation form strictly: only quoted strings, separated by white space, each at
// most MaxString bytes once decoded. ok is false for anything else.
func parseQuoted(v string) ([]string, bool) {
	if !strings.HasPrefix(v, `"`) {
		return nil, false
	}
	toks, err := scan(v)
	if err != nil {
		return nil, false
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		if !t.quoted || t.glued || len(t.text) > MaxString {
			return nil, false
		}
		out[i] = t.text
	}
	return out, true
}
