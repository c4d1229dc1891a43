package dnstext

import (
	"fmt"
	"strings"
	"testing"
)

func TestStringsAndTarget(t *testing.T) {
	owner := `"heritage=external-dns,external-dns/owner=zk,external-dns/resource=ingress/default/web"`
	long := strings.Repeat("x", 300)
	for _, c := range []struct {
		target    string
		strs      []string
		canonical string
	}{
		// The registry's ownership value: the quotes are delimiters, and reading gives them back.
		{owner, []string{owner[1 : len(owner)-1]}, owner},
		// A quoted SPF value, as external-dns users write it: stored unquoted, read as text.
		{`"v=spf1 include:_spf.example.com -all"`, []string{"v=spf1 include:_spf.example.com -all"}, "v=spf1 include:_spf.example.com -all"},
		{`"part one" "part two"`, []string{"part one", "part two"}, "part onepart two"},
		{`"esc \"q\" \\ \059"`, []string{`esc "q" \ ;`}, `esc "q" \ ;`},
		// Raw text: its own bytes, split at 255.
		{"v1", []string{"v1"}, "v1"},
		{`say "hi"`, []string{`say "hi"`}, `say "hi"`},
		{`"unterminated`, []string{`"unterminated`}, `"unterminated`},
		{`"a"b`, []string{`"a"b`}, `"a"b`},
		{long, []string{long[:255], long[255:]}, long},
		{"", []string{""}, ""},
		// A quoted string over 255 bytes is not presentation form: kept as raw text.
		{`"` + long + `"`, []string{(`"` + long + `"`)[:255], (`"` + long + `"`)[255:]}, `"` + long + `"`},
		// Ownership-looking text with a quote inside is not an ownership value.
		{`"heritage=x\"y"`, []string{`heritage=x"y`}, `heritage=x"y`},
	} {
		if got := Strings(c.target); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.strs) {
			t.Errorf("Strings(%q) = %q, want %q", c.target, got, c.strs)
		}
		if got := Canonical(c.target); got != c.canonical {
			t.Errorf("Canonical(%q) = %q, want %q", c.target, got, c.canonical)
		}
		// Canonical is a fixed point: writing what was read changes nothing.
		if again := Canonical(Canonical(c.target)); again != Canonical(c.target) {
			t.Errorf("Canonical is not stable for %q: %q then %q", c.target, Canonical(c.target), again)
		}
	}
}

// Raw UTF-8 text is split without cutting a character.
func TestSplitKeepsUTF8(t *testing.T) {
	text := strings.Repeat("é", 200) // 400 bytes
	strs := Strings(text)
	if len(strs) != 2 || len(strs[0]) != 254 || strings.Join(strs, "") != text {
		t.Errorf("split into %d strings of %d bytes", len(strs), len(strs[0]))
	}
}
