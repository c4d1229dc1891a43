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
	ports    portReservation // client and peer
}

// StartEtcd starts etcd for the duration of the test.
func StartEtcd(t testing.TB) *Etcd {
	t.Helper()
	e, _ := newEtcd(t, "http")
	if err := e.Start(); err != nil {
		t.Fatalf("etcd: %v", err)
	}
	t.Cleanup(e.Close)
	return e
}

// newEtcd prepares (does not start) an etcd on free loopback ports whose client URL has the given
// scheme; extra flags are added after the common ones. It returns the client address host:port.
func newEtcd(t testing.TB, scheme string, extra ...string) (*Etcd, string) {
	t.Helper()
	bin := Binary(t, "etcd")
	dir := t.TempDir()
	ports := FreePorts(t, 2)
	client, peer := ports[0], ports[1]
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
	return &Etcd{Endpoint: endpoint, proc: &process{name: bin, dir: dir, args: args}, ports: portReservation{ports: ports}}, addr
}

// Start starts (or restarts) the server and waits until it answers.
func (e *Etcd) Start() error {
	e.ports.release()
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

// Stop stops the server; its data and its ports stay for a later Start.
func (e *Etcd) Stop() {
	e.proc.stop()
	e.ports.hold()
}

// Close stops the server for good and gives its ports back.
func (e *Etcd) Close() {
	e.proc.stop()
	e.ports.release()
}

// Log returns what the server printed.
func (e *Etcd) Log() string { return e.proc.log() }
