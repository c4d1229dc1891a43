package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/source/sourcetest"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// The differential test of the traefik-proxy, contour-httpproxy and openshift-route sources: the
// fixture is on a real API server; every built external-dns version and zonekeeper run once each with
// the same flags into their own empty etcd prefix of CoreDNS's backend, and the record sets are compared
// record by record (name, type, TTL, targets; the ownership TXT records included).

// diffPin is an intended difference (docs/migration.md): records whose name matches re are written by
// one side only. A pin that matches nothing fails the test, so that pins cannot go stale.
type diffPin struct {
	onlyED bool
	re     *regexp.Regexp
	why    string
	// v021 limits the pin to external-dns v0.21.0 (later versions behave as zonekeeper).
	v021 bool
	// optional: the difference depends on external-dns's random order of objects, and may not show.
	optional bool
	// refused: zonekeeper's source asks for the record and its provider refuses it; the log must show
	// the refused CREATE of every such record (ownership TXT records aside).
	refused bool
}

// diffSet is one run: flags added to the base command line, and the differences it pins.
type diffSet struct {
	flags []string
	pins  []diffPin
	// min is the least number of records external-dns must write (the fixture must not go empty).
	min int
}

// compareWithExternalDNS runs each set against each peer; base names the sources and the cluster.
func compareWithExternalDNS(t *testing.T, base []string, sets []diffSet) {
	t.Helper()
	compareWithExternalDNSEnv(t, base, nil, sets)
}

// compareWithExternalDNSEnv is compareWithExternalDNS with peerEnv ("NAME=value") added to the
// environment of external-dns (SSL_CERT_FILE for its skipper source, which verifies the API server with
// the system roots).
func compareWithExternalDNSEnv(t *testing.T, base, peerEnv []string, sets []diffSet) {
	t.Helper()
	peers := testbed.ExternalDNSPeers(t)
	etcd := testbed.StartEtcd(t)
	t.Setenv("ETCD_URLS", etcd.Endpoint) // the coredns provider reads it from the process environment
	// A client rate above the default 5/s: zonekeeper writes its Events before --once exits, at that
	// rate (external-dns writes none for these kinds); the records compared do not depend on it.
	base = append([]string{"--provider=coredns", "--registry=txt", "--txt-owner-id=diff", "--policy=sync",
		"--domain-filter=example.com", "--kube-api-qps=100", "--kube-api-burst=200"}, base...)
	for i, set := range sets {
		for _, peer := range peers {
			t.Run(fmt.Sprintf("%s flags %d %v", peer.Version, i, set.flags), func(t *testing.T) {
				args := append(append([]string{}, base...), set.flags...)
				edP, zkP := fmt.Sprintf("/ed%d%s/", i, peer.Version), fmt.Sprintf("/zk%d%s/", i, peer.Version)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				start := time.Now()
				cmd := exec.CommandContext(ctx, peer.Binary, append(append(args, peer.Args...), "--once", "--log-level=debug", "--coredns-prefix="+edP,
					// Not :7979: other tests may run an external-dns at the same time.
					fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t)))...)
				cmd.Env = append(append(os.Environ(), "ETCD_URLS="+etcd.Endpoint), peerEnv...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("external-dns: %v\n%s", err, tail(string(out), 6000))
				}
				edTime := time.Since(start)
				start = time.Now()
				var log bytes.Buffer
				if code := app.Main(ctx, append(args, "--once", "--coredns-prefix="+zkP), &bytes.Buffer{}, &log, os.Getenv); code != 0 {
					t.Fatalf("zonekeeper exited %d:\n%s", code, tail(log.String(), 6000))
				}
				t.Logf("external-dns %s, zonekeeper %s", edTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
				ed, zk := recordSet(t, etcd.Endpoint, edP), recordSet(t, etcd.Endpoint, zkP)
				if len(ed) < set.min {
					t.Errorf("external-dns wrote only %d records, want at least %d: %v", len(ed), set.min, ed)
				}
				hits := make([]int, len(set.pins))
				var unexpected []string
				check := func(r string, onlyED bool) {
					name := strings.Fields(r)[0]
					for k, p := range set.pins {
						if p.onlyED == onlyED && p.re.MatchString(name) && (!p.v021 || peer.Version == "v0.21.0") {
							hits[k]++
							typ := strings.Fields(r)[1]
							if p.refused && typ != "TXT" && !strings.Contains(log.String(), fmt.Sprintf("action=CREATE record=%s type=%s", name, typ)) {
								unexpected = append(unexpected, fmt.Sprintf("%s %s: zonekeeper's source did not ask for it (no refused CREATE in its log)", name, typ))
							}
							return
						}
					}
					side := "only zonekeeper:   "
					if onlyED {
						side = "only external-dns: "
					}
					unexpected = append(unexpected, side+r)
				}
				for r := range ed {
					if !zk[r] {
						check(r, true)
					}
				}
				for r := range zk {
					if !ed[r] {
						check(r, false)
					}
				}
				sort.Strings(unexpected)
				if len(unexpected) > 0 {
					t.Errorf("%d records differ (%d from external-dns):\n%s\nexternal-dns log:\n%s\nzonekeeper log:\n%s",
						len(unexpected), len(ed), strings.Join(unexpected, "\n"), tail(string(out), 4000), tail(log.String(), 4000))
				}
				for k, p := range set.pins {
					if hits[k] == 0 && !p.optional && (!p.v021 || peer.Version == "v0.21.0") {
						t.Errorf("pinned difference %q did not show: is its fixture case gone?", p.why)
					}
				}
				t.Logf("%d records compared, %v pinned differences", len(ed), hits)
			})
		}
	}
}

// crdCluster starts an API server, installs CRDs with install, creates objs (and their namespaces), and
// returns the flags that point --source at it.
func crdCluster(t *testing.T, install func(testing.TB, *testbed.KubeAPIServer) []string, source string, objs []*unstructured.Unstructured) []string {
	t.Helper()
	_, flags := crdClusterServer(t, install, source, objs)
	return flags
}

// crdClusterServer is crdCluster, also returning the API server.
func crdClusterServer(t *testing.T, install func(testing.TB, *testbed.KubeAPIServer) []string, source string, objs []*unstructured.Unstructured) (*testbed.KubeAPIServer, []string) {
	t.Helper()
	kube, _, _ := sourcetest.StartClusterServer(t, install, objs...)
	return kube, []string{"--kubeconfig=" + kube.Kubeconfig, "--source=" + source}
}
