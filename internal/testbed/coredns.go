package testbed

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// CoreDNS is a CoreDNS server on loopback (UDP and TCP on the same port).
type CoreDNS struct {
	// Addr is 127.0.0.1:PORT.
	Addr string
	proc *process
}

// EtcdCorefile returns a Corefile that serves zones from etcd under path (for example "/skydns").
func EtcdCorefile(port int, etcdEndpoint, path string, zones ...string) string {
	return fmt.Sprintf(`%s:%d {
    bind 127.0.0.1
    etcd {
        path %s
        endpoint %s
    }
    errors
}
`, strings.Join(zones, " "), port, path, etcdEndpoint)
}

// StartCoreDNSForEtcd starts CoreDNS serving zones from etcd under path.
func StartCoreDNSForEtcd(t testing.TB, etcdEndpoint, path string, zones ...string) *CoreDNS {
	t.Helper()
	port := FreePort(t)
	return StartCoreDNS(t, port, EtcdCorefile(port, etcdEndpoint, path, zones...))
}

// StartCoreDNS starts CoreDNS with a Corefile that listens on port.
func StartCoreDNS(t testing.TB, port int, corefile string) *CoreDNS {
	t.Helper()
	bin := Binary(t, "coredns")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Corefile"), []byte(corefile), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &CoreDNS{Addr: fmt.Sprintf("127.0.0.1:%d", port), proc: &process{name: bin, dir: dir, args: []string{"-conf", filepath.Join(dir, "Corefile")}}}
	if err := c.proc.start(); err != nil {
		t.Fatalf("coredns: %v", err)
	}
	t.Cleanup(c.proc.stop)
	err := waitFor(c.proc, 20*time.Second, func(ctx context.Context) error {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", c.Addr)
		if err != nil {
			return err
		}
		return conn.Close()
	})
	if err != nil {
		t.Fatalf("coredns: %v", err)
	}
	return c
}

// Log returns what the server printed.
func (c *CoreDNS) Log() string { return c.proc.log() }
