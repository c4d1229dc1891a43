package testbed

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// Etcd is an etcd server on loopback. It can be stopped and started again on the same ports and data,
// to test how clients ride out an outage.
type Etcd struct {
	// Endpoint is the client URL, http://127.0.0.1:PORT.
	Endpoint string
	proc     *process
}

// StartEtcd starts etcd for the duration of the test.
func StartEtcd(t testing.TB) *Etcd {
	t.Helper()
	e, _ := newEtcd(t, "http")
	if err := e.Start(); err != nil {
		t.Fatalf("etcd: %v", err)
	}
	t.Cleanup(e.Stop)
	return e
}

// newEtcd prepares (does not start) an etcd on free loopback ports whose client URL has the given
// scheme; extra flags are added after the common ones. It returns the client address host:port.
func newEtcd(t testing.TB, scheme string, extra ...string) (*Etcd, string) {
	t.Helper()
	bin := Binary(t, "etcd")
	dir := t.TempDir()
	client, peer := FreePort(t), FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", client)
	endpoint := scheme + "://" + addr
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	args := append([]string{
		"--name", "testbed",
		"--data-dir", dir + "/data",
		"--listen-client-urls", endpoint,
		"--advertise-client-urls", endpoint,
		"--listen-peer-urls", peerURL,
		"--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "testbed=" + peerURL,
		"--log-level", "warn",
	}, extra...)
	return &Etcd{Endpoint: endpoint, proc: &process{name: bin, dir: dir, args: args}}, addr
}

// Start starts (or restarts) the server and waits until it answers.
func (e *Etcd) Start() error {
	if err := e.proc.start(); err != nil {
		return err
	}
	return waitFor(e.proc, 20*time.Second, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.Endpoint+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("health: %s", resp.Status)
		}
		return nil
	})
}

// Stop stops the server; its data stays for a later Start.
func (e *Etcd) Stop() { e.proc.stop() }

// Log returns what the server printed.
func (e *Etcd) Log() string { return e.proc.log() }
