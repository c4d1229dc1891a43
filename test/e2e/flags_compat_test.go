package e2e

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Every flag of the real external-dns (v0.21.0 and v0.23.0, read from each binary's --help) is a
// zonekeeper flag too (implemented, accepted as a no-op, or refused with a reason when set), so no
// existing command line fails with "flag provided but not defined".
func TestEveryExternalDNSFlagIsKnown(t *testing.T) {
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			out, _ := exec.Command(peer.Binary, "--help").CombinedOutput()
			flags := regexp.MustCompile(`(?m)^\s+--(?:\[no-\])?([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1)
			if len(flags) < 150 {
				t.Fatalf("external-dns --help listed %d flags; expected its full list:\n%s", len(flags), out)
			}
			var cfg config.Config
			fs := config.NewFlagSet("zonekeeper", &cfg, io.Discard)
			for _, f := range flags {
				if name := f[1]; name != "help" && fs.Lookup(name) == nil {
					t.Errorf("external-dns %s flag --%s is not a zonekeeper flag", peer.Version, name)
				}
			}
			t.Logf("%d flags of external-dns %s checked", len(flags), peer.Version)
		})
	}
}

// Every flag zonekeeper refuses is accepted at the default the real external-dns (v0.21.0 and v0.23.0,
// read from each binary's --help) gives it, and refused at another value, so that a command line or a
// values file that spells out external-dns's defaults keeps working and nothing else is ignored.
func TestRefusedFlagsAtExternalDNSDefaults(t *testing.T) {
	base := []string{"--provider=inmemory", "--source=service"}
	for _, peer := range testbed.ExternalDNSPeers(t) {
		t.Run(peer.Version, func(t *testing.T) {
			out, _ := exec.Command(peer.Binary, "--help").CombinedOutput()
			var cfg config.Config
			fs := config.NewFlagSet("zonekeeper", &cfg, io.Discard)
			checked := 0
			for _, m := range regexp.MustCompile(`(?m)^\s+--([a-z0-9-]+)=(\S*)`).FindAllStringSubmatch(string(out), -1) {
				name, value := m[1], m[2]
				f := fs.Lookup(name)
				if f == nil || !strings.HasPrefix(f.Usage, "external-dns flag, refused when set") {
					continue
				}
				switch {
				case strings.HasPrefix(value, `"`):
					value = strings.Trim(value, `"`)
				case strings.ContainsAny(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || value == "...":
					value = "" // a placeholder: no default
				}
				if _, _, err := config.Parse("zonekeeper", append(base, "--"+name+"="+value), func(string) string { return "" }, io.Discard); err != nil {
					t.Errorf("--%s=%s (external-dns %s's default): %v", name, value, peer.Version, err)
				}
				if _, _, err := config.Parse("zonekeeper", append(base, "--"+name+"=zz-not-a-default"), func(string) string { return "" }, io.Discard); err == nil {
					t.Errorf("--%s=zz-not-a-default is accepted: a refused flag must say so", name)
				}
				checked++
			}
			// 39 (v0.21.0) and 29 (v0.23.0) now that the google and azure flags are a provider's own;
			// far fewer would mean the --help parsing broke, not that the list shrank.
			if checked < 20 {
				t.Errorf("only %d refused flags with a value found in external-dns %s --help", checked, peer.Version)
			}
			t.Logf("%d refused flags of external-dns %s accepted at their default", checked, peer.Version)
		})
	}
}

// external-dns's source wrapper flags on the command line, over the quickstart's objects: forced
// default targets replace every address, --min-ttl is the TTL of records whose object sets none (the
// web Service's ttl annotation, 120, is kept), a refused flag turned off is fine.
func TestSourceWrapperFlagsThroughTheCommandLine(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := app.Main(context.Background(), []string{"--once", "--source=manifest", "--manifest=" + repoPath(t, "examples/quickstart"),
		"--provider=inmemory", "--inmemory-zone=example.com", "--txt-owner-id=wan", "--policy=sync",
		"--default-targets=203.0.113.99", "--force-default-targets", "--min-ttl=5m", "--no-cloudflare-proxied",
		"--exclude-target-net=192.168.0.0/16"}, &stdout, &stderr, func(string) string { return "" })
	if code != app.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	zone := stdout.String()
	for _, want := range []string{"dev1.example.com.", "203.0.113.99"} {
		if !strings.Contains(zone, want) {
			t.Errorf("zone lacks %s:\n%s", want, zone)
		}
	}
	for _, line := range strings.Split(zone, "\n") {
		f := strings.Fields(line)
		wantTTL := "300"
		if strings.HasPrefix(line, "web.example.com.") {
			wantTTL = "120"
		}
		if len(f) == 5 && (f[3] == "A" || f[3] == "CNAME") && (f[4] != "203.0.113.99" || f[1] != wantTTL) {
			t.Errorf("not the forced default target with the minimum TTL: %s", line)
		}
	}
}

// repoPath is a path relative to the repository root (tests run in their package directory).
func repoPath(t *testing.T, rel string) string {
	t.Helper()
	return filepath.Join("..", "..", rel)
}
