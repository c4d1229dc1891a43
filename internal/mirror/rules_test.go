package mirror

import (
	"strings"
	"testing"
)

// The split-horizon rules of the reference: .host to the WAN address, .ttl to 900.
const wanRules = `
- jsonpath: .host
  repl: 203.0.113.7
- jsonpath: .ttl
  repl: 900
`

func mustRules(t *testing.T, text string) []Rule {
	t.Helper()
	r, err := ParseRules([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseRulesEtcdInjectorFormat(t *testing.T) {
	rules := mustRules(t, wanRules)
	if len(rules) != 2 {
		t.Fatalf("got %d rules", len(rules))
	}
	if rules[0].Field != "host" || string(rules[0].Value) != `"203.0.113.7"` || rules[0].Match != MatchIP || rules[0].Line != 2 {
		t.Errorf("rule 1 = %+v", rules[0])
	}
	if rules[1].Field != "ttl" || string(rules[1].Value) != `900` || rules[1].Line != 4 {
		t.Errorf("rule 2 = %+v", rules[1])
	}
	// etcd-injector's own example file spells the keys JSONPath and Repl.
	ex := mustRules(t, "- JSONPath: \".value\"\n  Repl: \"replaced\"\n")
	if ex[0].Field != "value" || string(ex[0].Value) != `"replaced"` {
		t.Errorf("example rule = %+v", ex[0])
	}
	// An empty file is no rules, as in etcd-injector.
	if r := mustRules(t, "\n# nothing\n"); len(r) != 0 {
		t.Errorf("empty file gave %v", r)
	}
}

func TestParseRulesExtensions(t *testing.T) {
	rules := mustRules(t, `
- jsonpath: .host
  repl: public.example.net
  match: name
  keys: [/skydns/com/example/www]
- jsonpath: .text
  repl: 'say "hi"'
  match: any
`)
	if rules[0].Match != MatchName || len(rules[0].Keys) != 1 || string(rules[0].Value) != `"public.example.net"` {
		t.Errorf("rule 1 = %+v", rules[0])
	}
	// A string with quotes is JSON-escaped (etcd-injector spliced it into jq unescaped).
	if string(rules[1].Value) != `"say \"hi\""` || rules[1].Match != MatchAny {
		t.Errorf("rule 2 = %+v", rules[1])
	}
}

func TestParseRulesErrorsNameTheLine(t *testing.T) {
	cases := []struct{ text, want string }{
		{"- jsonpath: .host\n  repl: 1.2.3.4\n- jsonpath: .a.b\n  repl: x\n", `line 3: jsonpath ".a.b" is not supported`},
		{"- jsonpath: .ttl\n  repl: nine hundred\n", `line 2: repl for .ttl: "nine hundred" is a string`},
		{"- jsonpath: .host\n  repl: 7\n", "line 2: repl for .host: 7 is a number"},
		{"- jsonpath: .ttl\n  repl: 900\n  match: cname\n", `line 3: match "cname"`},
		{"- jsonpath: .ttl\n  repl: 900\n  when: always\n", `line 3: unknown key "when"`},
		{"- repl: 900\n", "line 1: jsonpath is missing"},
		{"- jsonpath: .ttl\n", "line 1: repl is missing"},
		{"jsonpath: .ttl\n", "line 1: the rules file must be a list"},
		{"- jsonpath: .ttl\n  repl: [1]\n", "line 2: repl for .ttl: must be a string"},
		{"- jsonpath: .ttl\n  repl: -1\n", "outside 0..4294967295"},
		{"- jsonpath: .host\n  repl: x\n  keys: ['']\n", "line 3: keys: an empty key"},
		{"- [unclosed\n", "yaml"},
	}
	for _, c := range cases {
		_, err := ParseRules([]byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.text, err, c.want)
		}
	}
}

func TestLoadRulesNamesTheFile(t *testing.T) {
	if _, err := LoadRules(t.TempDir() + "/missing.yaml"); err == nil || !strings.Contains(err.Error(), "--rules-filepath") {
		t.Errorf("missing file: %v", err)
	}
	p := t.TempDir() + "/rules.yaml"
	writeFile(t, p, "- jsonpath: host\n  repl: x\n")
	if _, err := LoadRules(p); err == nil || !strings.Contains(err.Error(), p+": line 1") {
		t.Errorf("bad file: %v", err)
	}
}
