package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/zonekeeper/zonekeeper/internal/app"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Two-way compatibility with the real external-dns v0.21 on PowerDNS, BIND and Route 53 (the emulator),
// as on CoreDNS
// (externaldns_compat_test.go): a zone zonekeeper wrote is in sync for external-dns (users can roll
// back, and both can run side by side during a migration), and a zone external-dns wrote is in sync for
// zonekeeper. Both tools get the same flags.

// compatBackend starts a fresh server with an empty example.com and returns the provider flags both
// tools take for it.
func compatBackend(t *testing.T, name string) []string {
	if name == "aws" {
		// The emulator through both tools' aws-sdk-go-v2, pointed at it by AWS_ENDPOINT_URL_ROUTE_53.
		awsCredentials(t)
		startEmulator(t, route53emu.Options{}, route53emu.SeedZone{Name: "example.com"})
		return []string{"--provider=aws"}
	}
	if name == "pdns" {
		pd := testbed.StartPowerDNS(t, "example.com")
		return []string{"--provider=pdns", "--pdns-server=" + pd.APIURL, "--pdns-api-key=" + pd.APIKey}
	}
	key := testbed.NewTSIGKey(t, "compat-key", "hmac-sha256")
	bind := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key}, Zones: []testbed.BINDZone{{
		Name: "example.com", UpdateKey: key.Name, TransferKey: key.Name,
	}}})
	host, port := splitAddr(t, bind.Addr)
	return []string{"--provider=rfc2136", "--rfc2136-host=" + host, fmt.Sprintf("--rfc2136-port=%d", port),
		"--rfc2136-zone=example.com", "--rfc2136-tsig-keyname=" + key.Name, "--rfc2136-tsig-secret=" + key.Secret,
		"--rfc2136-tsig-secret-alg=hmac-sha256", "--rfc2136-tsig-axfr"}
}

func compatFlags(e *env, backend []string) []string {
	return append([]string{"--source=ingress", "--source=service", "--registry=txt", "--txt-owner-id=shared",
		"--policy=sync", "--domain-filter=example.com", "--kubeconfig=" + e.kube.Kubeconfig}, backend...)
}

func runExternalDNSWith(t *testing.T, peer testbed.ExternalDNSPeer, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--once", "--log-level=debug", fmt.Sprintf("--metrics-address=127.0.0.1:%d", testbed.FreePort(t))}, flags...)
	out, err := exec.CommandContext(ctx, peer.Binary, append(args, peer.Args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("external-dns %s: %v\n%s", peer.Version, err, tail(string(out), 6000))
	}
	return string(out)
}

func TestZoneInSyncBothWaysOnPowerDNSBINDAndRoute53(t *testing.T) {
	kube := testbed.StartKubeAPIServer(t)
	e := &env{kube: kube, client: kube.Client(t)}
	e.publishTestObjects(t)
	for _, peer := range testbed.ExternalDNSPeers(t) {
		for _, name := range []string{"pdns", "rfc2136", "aws"} {
			t.Run(peer.Version+"/"+name+"/written by zonekeeper", func(t *testing.T) {
				flags := compatFlags(e, compatBackend(t, name))
				if code, out, errOut := e.run(t, append([]string{"--once"}, flags...)...); code != app.ExitOK {
					t.Fatalf("zonekeeper --once: exit %d\n%s\n%s", code, out, tail(errOut, 4000))
				}
				// A real run (external-dns's pdns provider has no dry run): a rollback would do exactly this.
				log := runExternalDNSWith(t, peer, flags...)
				if !strings.Contains(log, "All records are already up to date") {
					t.Fatalf("external-dns wants to change zonekeeper's zone:\n%s", tail(log, 6000))
				}
				// In sync is not enough: external-dns must recognise the records as its own, or it would
				// never update them. The object moves; after external-dns's run zonekeeper finds nothing to do.
				ing, err := e.client.NetworkingV1().Ingresses("default").Get(context.Background(), "nginx-test-ingress", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ing = e.setIngressIP(t, ing, "192.168.10.99")
				defer func() { e.setIngressIP(t, ing, "192.168.10.51") }()
				log = runExternalDNSWith(t, peer, flags...)
				ing, err = e.client.NetworkingV1().Ingresses("default").Get(context.Background(), "nginx-test-ingress", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				e.expectPlan(t, app.ExitOK, "No changes", flags...)
				if !strings.Contains(log, "192.168.10.99") {
					t.Errorf("external-dns did not write the new address:\n%s", tail(log, 4000))
				}
			})
			t.Run(peer.Version+"/"+name+"/written by external-dns", func(t *testing.T) {
				flags := compatFlags(e, compatBackend(t, name))
				runExternalDNSWith(t, peer, flags...)
				e.expectPlan(t, app.ExitOK, "No changes", flags...)
			})
		}
	}
}
