package testbed

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"
)

// ExternalDNSWebhookAddress is where `external-dns --webhook-server` listens: external-dns v0.21 has no
// flag for it. It lies below the range FreePorts picks from, so no other test server takes it; only
// one such server can run on a machine at a time, so the tests that start one live in one package
// and do not run in parallel.
const ExternalDNSWebhookAddress = "127.0.0.1:8888"

// ExternalDNSWebhook is the real external-dns serving one of its in-tree providers over the webhook
// protocol (--webhook-server): the reference peer for zonekeeper's webhook client.
type ExternalDNSWebhook struct {
	// URL is http://127.0.0.1:8888.
	URL  string
	proc *process
}

// StartExternalDNSWebhook starts `external-dns --webhook-server` with the provider flags given, and
// waits until it negotiates.
func StartExternalDNSWebhook(t testing.TB, providerArgs ...string) *ExternalDNSWebhook {
	t.Helper()
	return StartExternalDNSWebhookPeer(t, ExternalDNSPeer{Version: "v0.21.0", Binary: Binary(t, "external-dns")}, providerArgs...)
}

// StartExternalDNSWebhookPeer is StartExternalDNSWebhook for one external-dns version.
func StartExternalDNSWebhookPeer(t testing.TB, peer ExternalDNSPeer, providerArgs ...string) *ExternalDNSWebhook {
	t.Helper()
	bin := peer.Binary
	if l, err := net.Listen("tcp", ExternalDNSWebhookAddress); err != nil {
		t.Fatalf("external-dns --webhook-server needs %s, which is in use: %v", ExternalDNSWebhookAddress, err)
	} else {
		l.Close()
	}
	args := append([]string{
		"--webhook-server",
		// The sources are built before the server starts; fake needs no cluster.
		"--source=fake",
		// Unused by the server, but v0.22+ refuses to start without it.
		"--policy=sync",
		fmt.Sprintf("--metrics-address=127.0.0.1:%d", FreePort(t)),
		"--log-level=debug",
	}, append(providerArgs, peer.Args...)...)
	e := &ExternalDNSWebhook{URL: "http://" + ExternalDNSWebhookAddress, proc: &process{name: bin, dir: t.TempDir(), args: args}}
	if err := e.proc.start(); err != nil {
		t.Fatalf("external-dns: %v", err)
	}
	t.Cleanup(e.proc.stop)
	err := waitFor(e.proc, 20*time.Second, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
		req.Header.Set("Accept", "application/external.dns.webhook+json;version=1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("negotiation: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("external-dns --webhook-server: %v", err)
	}
	return e
}

// Log returns what external-dns printed.
func (e *ExternalDNSWebhook) Log() string { return e.proc.log() }
