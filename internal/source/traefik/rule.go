package traefik

import "strings"

// ruleHosts returns the names a Traefik router rule matches by host, as external-dns v0.21 reads them:
// every Host, HostHeader and HostSNI matcher (optional blanks around the parenthesis) whose argument
// list starts with a backquote and ends with a backquote right before the closing parenthesis, on one
// line; each backquoted value in it without a comma is a name. "*" (HostSNI(`*`) for TLS passthrough)
// and empty values are not names. HostRegexp and HostSNIRegexp match no fixed name and are skipped.
func ruleHosts(rule string) []string {
	var out []string
	for i := 0; i < len(rule); {
		at := strings.Index(rule[i:], "Host")
		if at < 0 {
			break
		}
		start := i + at
		end := matcherEnd(rule, start)
		if end < 0 {
			i = start + 1
			continue
		}
		for _, v := range quotedValues(rule[start:end]) {
			if v != "*" {
				out = append(out, v)
			}
		}
		i = end
	}
	return out
}

// matcherEnd returns the index just past the ")" closing the host matcher that starts at rule[start]
// ("Host", "HostHeader" or "HostSNI"), or -1 when none starts there.
func matcherEnd(rule string, start int) int {
	p := start + len("Host")
	for _, suffix := range []string{"SNI", "Header"} {
		if strings.HasPrefix(rule[p:], suffix) {
			p += len(suffix)
			break
		}
	}
	p = skipBlank(rule, p)
	if p >= len(rule) || rule[p] != '(' {
		return -1
	}
	p = skipBlank(rule, p+1)
	if p >= len(rule) || rule[p] != '`' {
		return -1
	}
	// The shortest argument list: the first later backquote followed by blanks and ")"; the list
	// itself does not cross a line.
	for q := p + 1; q < len(rule) && rule[q] != '\n'; q++ {
		if rule[q] != '`' {
			continue
		}
		if r := skipBlank(rule, q+1); r < len(rule) && rule[r] == ')' {
			return r + 1
		}
	}
	return -1
}

// skipBlank skips the characters RE2's \s matches: space, \t, \n, \f, \r.
func skipBlank(s string, p int) int {
	for p < len(s) && strings.IndexByte(" \t\n\f\r", s[p]) >= 0 {
		p++
	}
	return p
}

// quotedValues returns, left to right, every non-empty run of characters other than "," and "`"
// enclosed in backquotes; a backquote that opens no such run is passed over.
func quotedValues(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		open := strings.IndexByte(s[i:], '`')
		if open < 0 {
			break
		}
		open += i
		j := open + 1
		for j < len(s) && s[j] != '`' && s[j] != ',' {
			j++
		}
		if j > open+1 && j < len(s) && s[j] == '`' {
			out = append(out, s[open+1:j])
			i = j + 1
			continue
		}
		i = open + 1
	}
	return out
}
