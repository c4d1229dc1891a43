package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// runPeerOnce runs one version of the real external-dns once (--once --log-level=debug plus the
// version's own Args, and a free metrics port) with args, against the CoreDNS etcd at etcdEndpoint; it returns the log and how
// long the run took, and fails the test when external-dns fails.
func runPeerOnce(t *testing.T, peer testbed.ExternalDNSPeer, etcdEndpoint string, args ...string) (string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Its metrics server would take :7979, which another external-dns running at the same time holds.
	flags := append(append(append([]string{}, args...), peer.Args...), "--once", "--log-level=debug",
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))
	cmd := exec.CommandContext(ctx, peer.Binary, flags...)
	cmd.Env = append(os.Environ(), "ETCD_URLS="+etcdEndpoint)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("external-dns %s: %v\n%s", peer.Version, err, tail(string(out), 6000))
	}
	return string(out), time.Since(start)
}

// diffRecordSets lists the records only one side has, sorted: "only external-dns: <record>" and
// "only zonekeeper:   <record>".
func diffRecordSets(ed, zk map[string]bool) []string {
	var diffs []string
	for r := range ed {
		if !zk[r] {
			diffs = append(diffs, "only external-dns: "+r)
		}
	}
	for r := range zk {
		if !ed[r] {
			diffs = append(diffs, "only zonekeeper:   "+r)
		}
	}
	sort.Strings(diffs)
	return diffs
}
