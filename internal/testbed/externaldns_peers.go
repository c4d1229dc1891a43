package testbed

import (
	"os"
	"path/filepath"
	"testing"
)

// ExternalDNSPeer is one version of the real external-dns that compatibility tests compare with.
type ExternalDNSPeer struct {
	// Version is "v0.21.0" or "v0.23.0".
	Version string
	// Binary is the path of the executable.
	Binary string
	// Args are what this version needs to read the same objects as the others: v0.22+ reads the
	// external-dns.alpha.kubernetes.io/ annotations only with --enable-legacy-annotation-prefix.
	Args []string
}

// externalDNSPeerVersions are the versions hack/testbed.sh builds, oldest first.
var externalDNSPeerVersions = []ExternalDNSPeer{
	{Version: "v0.21.0"},
	{Version: "v0.23.0", Args: []string{"--enable-legacy-annotation-prefix"}},
}

// ExternalDNSPeers returns every external-dns version the testbed has built. A version that is
// missing fails the test in CI and is skipped (with a log line) elsewhere; with none at all the test
// is skipped outside CI.
func ExternalDNSPeers(t testing.TB) []ExternalDNSPeer {
	t.Helper()
	var out []ExternalDNSPeer
	var missing []string
	for _, p := range externalDNSPeerVersions {
		bin := filepath.Join(BinDir(), "external-dns-"+p.Version)
		if _, err := os.Stat(bin); err != nil {
			missing = append(missing, bin)
			continue
		}
		p.Binary = bin
		p.Args = append([]string(nil), p.Args...)
		out = append(out, p)
	}
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("external-dns peers missing: %v: run hack/testbed.sh", missing)
		}
		t.Logf("external-dns peers missing, comparing without them: %v (run hack/testbed.sh)", missing)
	}
	if len(out) == 0 {
		t.Skip("no external-dns peer built: run hack/testbed.sh")
	}
	return out
}
