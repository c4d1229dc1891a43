package app

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
)

// Issue 13 part 2 item 3: a view names its own provider kind (--view-provider), so the internal view
// stays in one backend and the external one goes to Cloudflare. What cannot work is refused, naming
// the flag: an unknown kind, two views on a kind that holds one view (one Cloudflare account over the
// same zones), a kind that needs per-view placement and lacks it, a per-view option for a view another
// kind publishes.
func TestViewProviderRefusals(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--source=manifest", "--manifest=" + dir, "--txt-owner-id=views", "--once", "--metrics-address="}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider=coredns", "--view=internal", "--view=external", "--view-provider=external=nosuch"},
			"--view-provider=external=nosuch: unknown provider nosuch"},
		{[]string{"--provider=coredns", "--view=internal", "--view-provider=external=cloudflare"},
			"--view-provider=external=cloudflare: no --view=external declared"},
		{[]string{"--provider=inmemory", "--view-provider=external=cloudflare"},
			"--view-* settings need views declared with --view=NAME"},
		{[]string{"--provider=inmemory", "--view=a", "--view=b", "--view-provider=a=cloudflare", "--view-provider=b=cloudflare"},
			"--view-provider: views a and b are all published by the cloudflare provider, which holds one view: one Cloudflare account (CF_API_TOKEN) holds one copy of its zones"},
		{[]string{"--provider=cloudflare", "--view=a", "--view=b"},
			"--provider=cloudflare: one Cloudflare account (CF_API_TOKEN) holds one copy of its zones, so two views on it over the same zones would overwrite each other's records; publish one view there (views a and b; give all but one of them another provider with --view-provider=NAME=KIND)"},
		{[]string{"--provider=coredns", "--view=a", "--view=b", "--view=c", "--view-provider=c=cloudflare"},
			"views a and b both write etcd prefix /skydns/: give each view its own with --view-coredns-prefix"},
		{[]string{"--provider=coredns", "--view=internal", "--view=external", "--view-provider=external=cloudflare", "--view-coredns-prefix=external=/external/"},
			"--view-coredns-prefix=external=/external/: view external is published by the cloudflare provider, which does not read this coredns setting"},
		{[]string{"--provider=coredns", "--view=internal", "--view-coredns-prefix=internal=/skydns/", "--view-subnets=internal=10.0.0.0/8"},
			"--view-subnets=internal=10.0.0.0/8: view internal is published by the coredns provider; only the built-in server (--provider=builtin) chooses a view by the client's address"},
		{[]string{"plan", "--provider=inmemory", "--view=a", "--view-provider=a=builtin"},
			"zonekeeper plan: --view-provider names builtin, which keeps its records in the running zonekeeper only"},
	} {
		var out, errOut bytes.Buffer
		args := append(append([]string{}, c.args...), base...)
		code := Main(context.Background(), args, &out, &errOut, func(string) string { return "" })
		if code != ExitError || !strings.Contains(out.String()+errOut.String(), c.want) {
			t.Errorf("zonekeeper %s: exit %d, want %d and %q\n%s%s", strings.Join(c.args, " "), code, ExitError, c.want, out.String(), errOut.String())
		}
	}
}

// One run, two kinds: the internal view in the inmemory provider (printed at the end of --once) with
// the address the Service reports, the external view in the Cloudflare emulator with the public
// address and its own ownership TXT records; a record in Cloudflare that zonekeeper does not own is
// left as it is. A single view on Cloudflare is accepted (it holds one view, not none).
func TestViewProviderPublishesEachViewInItsKind(t *testing.T) {
	emu := cloudflareemu.New(cloudflareemu.Options{})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	if _, err := emu.Seed(cloudflareemu.Seed{Zones: []cloudflareemu.SeedZone{{Name: "example.com",
		Records: []cloudflareemu.SeedRecord{{Type: "A", Name: "router.example.com", Content: "198.51.100.1", TTL: 1}}}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	svc := `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: home
  annotations: {external-dns.alpha.kubernetes.io/hostname: www.example.com}
spec: {type: LoadBalancer, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 192.168.1.50}]}}
`
	if err := os.WriteFile(filepath.Join(dir, "svc.yaml"), []byte(svc), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		return map[string]string{"CF_API_TOKEN": "x", "CLOUDFLARE_BASE_URL": srv.URL + cloudflareemu.APIPrefix}[k]
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"--source=manifest", "--manifest=" + dir, "--txt-owner-id=home", "--once",
		"--metrics-address=", "--provider=inmemory", "--inmemory-zone=example.com", "--domain-filter=example.com",
		"--view=internal", "--view=external", "--view-provider=external=cloudflare", "--view-targets=external=public",
		"--public-ip=203.0.113.7"}, &out, &errOut, getenv)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "; view internal") || strings.Contains(out.String(), "; view external") ||
		!regexpLine(out.String(), "www.example.com.", "A", "192.168.1.50") {
		t.Errorf("the internal view (inmemory) does not hold the reported address alone:\n%s", out.String())
	}
	got := map[string]string{}
	for _, z := range emu.Dump() {
		for _, r := range z.Records {
			got[r.Type+" "+r.Name] = r.Content
		}
	}
	if got["A www.example.com"] != "203.0.113.7" {
		t.Errorf("Cloudflare holds %q for www.example.com, want the public address 203.0.113.7 (all: %v)", got["A www.example.com"], got)
	}
	if got["A router.example.com"] != "198.51.100.1" {
		t.Errorf("the record zonekeeper does not own changed: %v", got)
	}
	owned := false
	for k, v := range got {
		owned = owned || (strings.HasPrefix(k, "TXT ") && strings.Contains(v, "external-dns/owner=home"))
	}
	if !owned {
		t.Errorf("no ownership TXT record in Cloudflare: %v", got)
	}
}

// regexpLine reports whether out has a zone line with these name, type and target.
func regexpLine(out, name, typ, target string) bool {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 5 && f[0] == name && f[3] == typ && f[4] == target {
			return true
		}
	}
	return false
}
