package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Issue 13: what a provider kind declares reaches the commands as it did when the app named each
// provider: the refusals of views, of zonekeeper plan and of a shared BIND key, the per-view options'
// checks, and the zone an inmemory --once run prints.
func TestProviderKindsThroughTheCommands(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--source=manifest", "--manifest=" + dir, "--txt-owner-id=kinds", "--once", "--metrics-address="}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan", "--provider=builtin", "--builtin-zone=example.com"}, ExitError,
			"zonekeeper plan: --provider=builtin keeps its records in the running zonekeeper only"},
		{[]string{"--provider=pdns", "--view=a", "--view=b"}, ExitError, "--provider=pdns: PowerDNS 4.7 has no views"},
		{[]string{"--provider=aws", "--view=a", "--view=b"}, ExitError, "--provider=aws: views are not supported yet"},
		{[]string{"--provider=webhook", "--view=a", "--view=b"}, ExitError, "--provider=webhook: views are not supported"},
		{[]string{"--provider=rfc2136", "--rfc2136-host=127.0.0.1", "--rfc2136-zone=example.com", "--rfc2136-insecure", "--view=a", "--view=b"},
			ExitError, "give view a its own key with --view-rfc2136-tsig-keyname=a=KEY"},
		{[]string{"--provider=inmemory", "--view-rfc2136-tsig-keyname=a=key"}, ExitError, "--view-* settings need views declared with --view=NAME"},
		{[]string{"--provider=inmemory", "--view=a", "--view-coredns-prefix=b=/b/"}, ExitError, "--view-coredns-prefix=b=/b/: no --view=b declared"},
		{[]string{"--provider=coredns", "--view=a", "--view-coredns-prefix=a=skydns"}, ExitError, "--view-coredns-prefix=a=skydns: an etcd prefix starts with /"},
		{[]string{"--provider=skydns", "--view=a", "--view=b"}, ExitError, "views a and b both write etcd prefix /skydns/"},
		{[]string{"--provider=inmemory", "--inmemory-zone=example.com"}, ExitOK, "; zone contents after the run (inmemory provider)"},
	} {
		var out, errOut bytes.Buffer
		args := append(append([]string{}, c.args...), base...)
		code := Main(context.Background(), args, &out, &errOut, func(string) string { return "" })
		if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
			t.Errorf("zonekeeper %s: exit %d, want %d and %q\n%s%s", strings.Join(c.args, " "), code, c.code, c.want, out.String(), errOut.String())
		}
	}
}
