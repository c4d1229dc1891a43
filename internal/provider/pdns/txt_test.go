package pdns

import (
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// txtValues are values that must survive a write and a read byte for byte.
var txtValues = map[string]string{
	"ownership":    `"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/web"`,
	"plain":        "v=spf1 -all",
	"backslashes":  `a\b\\c\`,
	"quotes":       `say "hi", then "bye"`,
	"utf8":         "café ✓",
	"control":      "tab\there\nnewline\x00nul",
	"invalid-utf8": "bad\xff\xfebytes",
	"long":         strings.Repeat("0123456789", 60), // 600 bytes: three character-strings
	"long-utf8":    strings.Repeat("é", 200),         // a 255-byte cut would split a rune
	"escape-like":  `\065 is not A`,
	"spaces":       "  leading and trailing  ",
}

func TestQuoteTXTRoundTrip(t *testing.T) {
	for name, v := range txtValues {
		q := quoteTXT(v)
		strs, err := unquoteTXT(q)
		if got := strings.Join(strs, ""); err != nil || got != v {
			t.Errorf("%s: %q → %s → %q, %v", name, v, q, strs, err)
		}
	}
	if q := quoteTXT(`"a",b`); q != `"\"a\",b"` {
		t.Errorf("ownership-style value quoted as %s", q)
	}
}

func TestUnquoteTXTForms(t *testing.T) {
	cases := map[string]string{
		`"a" "b"`:        "ab",
		`"a b"`:          "a b",
		`bare words`:     "barewords",
		`"caf\195\169"`:  "café",
		`"x\"y"`:         `x"y`,
		`""`:             "",
		`"a\\"   "\065"`: `a\A`,
	}
	for in, want := range cases {
		strs, err := unquoteTXT(in)
		if got := strings.Join(strs, ""); err != nil || got != want {
			t.Errorf("unquoteTXT(%s) = %q, %v; want %q", in, strs, err, want)
		}
	}
	for _, bad := range []string{`"open`, `"a\`, `"\999"`} {
		if _, err := unquoteTXT(bad); err == nil {
			t.Errorf("unquoteTXT(%s): no error", bad)
		}
	}
}

// Every value is written to pdns_server, read back through Records byte for byte, and answered over
// DNS with exactly those bytes — except that an ownership value's quotes are delimiters, as external-dns
// writes it: DNS answers heritage=… and Records gives the quoted value back.
func TestTXTRoundTripThroughPowerDNS(t *testing.T) {
	s := startServer(t)
	var eps []*endpoint.Endpoint
	byName := map[string]string{}
	for name, v := range txtValues {
		n := "txt-" + name + ".example.com"
		eps = append(eps, endpoint.NewWithTTL(n, endpoint.RecordTypeTXT, 60, v))
		byName[n] = v
	}
	if err := s.p.ApplyChanges(ctxT(t), &plan.Changes{Create: eps}); err != nil {
		t.Fatal(err)
	}
	got, err := s.p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range got {
		want, ok := byName[e.DNSName]
		if !ok {
			continue
		}
		seen++
		if len(e.Targets) != 1 || e.Targets[0] != want {
			t.Errorf("Records %s = %q, want %q", e.DNSName, e.Targets, want)
		}
		var wire []string
		for _, rr := range s.lookup(t, e.DNSName, dns.TypeTXT) {
			if txt, ok := rr.(*dns.TXT); ok {
				wire = append(wire, dnstext.Unescape(strings.Join(txt.Txt, "")))
			}
		}
		if onWire := strings.Join(dnstext.Strings(want), ""); len(wire) != 1 || wire[0] != onWire {
			t.Errorf("DNS %s = %q, want %q", e.DNSName, wire, want)
		}
	}
	if seen != len(byName) {
		t.Fatalf("Records listed %d of %d TXT records", seen, len(byName))
	}
}
