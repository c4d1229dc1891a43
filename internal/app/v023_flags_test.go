package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runManifest runs --once over testdata/v023 with the inmemory provider and returns the A records.
func runManifest(t *testing.T, extra ...string) []string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"--source=manifest", "--manifest=testdata/v023", "--provider=inmemory", "--inmemory-zone=example.com", "--once"}, extra...)
	if code := Main(context.Background(), args, &stdout, &stderr, func(string) string { return "" }); code != ExitOK {
		t.Fatalf("%v: exit %d\n%s", extra, code, stderr.String())
	}
	var out []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if f := strings.Fields(l); len(f) == 5 && f[3] == "A" {
			out = append(out, f[0])
		}
	}
	return out
}

// external-dns v0.23 flags (issue 12): a repeated --fqdn-template is joined, not overwritten;
// --enable-legacy-annotation-prefix=false gives v0.23's strict prefix; --aws-zone-match-parent is a
// boolean.
func TestV023Flags(t *testing.T) {
	templates := []string{"--fqdn-template={{.Name}}.a.example.com", "--fqdn-template={{.Name}}.b.example.com"}
	cases := map[string]struct {
		flags []string
		want  string
	}{
		"both prefixes by default": {templates, "legacy.example.com. new.example.com."},
		"v0.23 strict prefix": {append([]string{"--enable-legacy-annotation-prefix=false"}, templates...),
			"legacy.a.example.com. legacy.b.example.com. new.example.com."},
		"v0.23 legacy prefix on": {append([]string{"--annotation-prefix=external-dns.kubernetes.io/", "--enable-legacy-annotation-prefix"}, templates...),
			"legacy.example.com. new.example.com."},
		"only the new prefix": {append([]string{"--annotation-prefix=external-dns.kubernetes.io/"}, templates...),
			"legacy.a.example.com. legacy.b.example.com. new.example.com."},
		"zone-match-parent as a boolean": {[]string{"--aws-zone-match-parent", "--no-aws-zone-match-parent"}, "legacy.example.com. new.example.com."},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := strings.Join(runManifest(t, c.flags...), " "); got != c.want {
				t.Errorf("records %s, want %s", got, c.want)
			}
		})
	}
}
