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
	bin := Binary(t, "etcd")
	dir := t.TempDir()
	client, peer := FreePort(t), FreePort(t)
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", client)
	e := &Etcd{Endpoint: endpoint, proc: &process{name: bin, dir: dir, args: []string{
		"--name", "testbed",
		"--data-dir", dir + "/data",
		"--listen-client-urls", endpoint,
		"--advertise-client-urls", endpoint,
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peer),
		"--initial-cluster", fmt.Sprintf("testbed=http://127.0.0.1:%d", peer),
		"--log-level", "warn",
	}}}
	if err := e.Start(); err != nil {
		t.Fatalf("etcd: %v", err)
	}
	t.Cleanup(e.Stop)
	return e
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
