package mirror

import "testing"

func TestRewriteOnlyIPEntriesByDefault(t *testing.T) {
	rules := mustRules(t, wanRules)
	cases := []struct{ name, in, want string }{
		{"A", `{"host":"10.0.0.5","ttl":300,"targetstrip":1}`, `{"host":"203.0.113.7","ttl":900,"targetstrip":1}`},
		{"A without ttl", `{"host":"10.0.0.5","targetstrip":1}`, `{"host":"203.0.113.7","targetstrip":1,"ttl":900}`},
		{"AAAA", `{"host":"fd00::5"}`, `{"host":"203.0.113.7","ttl":900}`},
		{"A+TXT merged by external-dns", `{"host":"10.0.0.5","text":"\"heritage=external-dns\""}`, `{"host":"203.0.113.7","text":"\"heritage=external-dns\"","ttl":900}`},
		// The entries etcd-injector broke: they must come out byte for byte.
		{"CNAME", `{"host":"lb.example.net","ttl":300,"targetstrip":1}`, `{"host":"lb.example.net","ttl":300,"targetstrip":1}`},
		{"TXT ownership", `{"text":"\"heritage=external-dns,external-dns/owner=e2e\"","targetstrip":1}`, `{"text":"\"heritage=external-dns,external-dns/owner=e2e\"","targetstrip":1}`},
		{"not JSON", `hello`, `hello`},
		{"JSON array", `[1,2]`, `[1,2]`},
		{"odd spacing kept when unchanged", `{ "host" : "203.0.113.7" , "ttl" : 900 }`, `{ "host" : "203.0.113.7" , "ttl" : 900 }`},
	}
	for _, c := range cases {
		got, _ := rewrite(rules, "/skydns/com/example/x/1", []byte(c.in))
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestRewriteMatchAndKeys(t *testing.T) {
	rules := mustRules(t, `
- jsonpath: .host
  repl: public.example.net
  match: name
  keys: [/skydns/com/example/www]
- jsonpath: .ttl
  repl: 60
  match: any
`)
	got, _ := rewrite(rules, "/skydns/com/example/www/1", []byte(`{"host":"lb.internal"}`))
	if string(got) != `{"host":"public.example.net","ttl":60}` {
		t.Errorf("www CNAME: %s", got)
	}
	// The key limit is at a path boundary: www2 is not www.
	got, _ = rewrite(rules, "/skydns/com/example/www2/1", []byte(`{"host":"lb.internal"}`))
	if string(got) != `{"host":"lb.internal","ttl":60}` {
		t.Errorf("www2 CNAME: %s", got)
	}
	// match: any is etcd-injector's behaviour and reaches TXT entries too.
	got, _ = rewrite(rules, "/skydns/com/example/a-www/1", []byte(`{"text":"x"}`))
	if string(got) != `{"text":"x","ttl":60}` {
		t.Errorf("TXT with match any: %s", got)
	}
	ipv6 := mustRules(t, "- jsonpath: .host\n  repl: 2001:db8::1\n  match: ipv6\n")
	if got, _ := rewrite(ipv6, "k", []byte(`{"host":"10.0.0.1"}`)); string(got) != `{"host":"10.0.0.1"}` {
		t.Errorf("ipv6 rule touched an IPv4 entry: %s", got)
	}
	if got, _ := rewrite(ipv6, "k", []byte(`{"host":"fd00::1"}`)); string(got) != `{"host":"2001:db8::1"}` {
		t.Errorf("ipv6 rule: %s", got)
	}
}

func TestMappingKeysAndIgnore(t *testing.T) {
	c := DefaultConfig()
	c.SrcDirectory, c.DstDirectory = "/skydns", "/external/"
	c.Src.Endpoints, c.Dst.Endpoints = []string{"http://127.0.0.1:1"}, []string{"http://127.0.0.1:1"}
	c.Ignore = []string{"/skydns/com/example/internal"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m := newMapping(c)
	cases := map[string]string{
		"/skydns/com/example/www/1":        "/external/com/example/www/1",
		"/skydns/com/example/internal":     "",
		"/skydns/com/example/internal/x/1": "",
		"/skydns/com/example/internals/1":  "/external/com/example/internals/1",
		"/skydns-internal/com/example/a/1": "", // /skydns is a directory, not a byte prefix
		"/skydns/":                         "",
	}
	for src, want := range cases {
		got, ok := m.key(src)
		if got != want || ok != (want != "") {
			t.Errorf("%s -> %q %v, want %q", src, got, ok, want)
		}
	}
}
