package dnstext

import "testing"

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:                     `plain`,
		`\"heritage=external-dns\"`: `"heritage=external-dns"`,
		`back\\slash`:               `back\slash`,
		`caf\195\169`:               "caf\xc3\xa9",
		`\059semi`:                  `;semi`,
		`trailing\`:                 `trailing\`,
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}
