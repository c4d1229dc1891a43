package testbed

import (
	"context"
	"net"
	"testing"
	"time"
)

// EtcdTLS names the PEM files of an etcd server that only speaks TLS and requires a client certificate
// signed by CAFile.
type EtcdTLS struct {
	CertFile, KeyFile, CAFile string
}

// StartEtcdTLS starts etcd with an https client URL (https://127.0.0.1:PORT) and client certificate
// authentication, for the duration of the test. The server certificate must be valid for 127.0.0.1.
func StartEtcdTLS(t testing.TB, files EtcdTLS) *Etcd {
	t.Helper()
	e, addr := newEtcd(t, "https",
		"--cert-file", files.CertFile,
		"--key-file", files.KeyFile,
		"--trusted-ca-file", files.CAFile,
		"--client-cert-auth",
	)
	if err := e.proc.start(); err != nil {
		t.Fatalf("etcd (TLS): %v", err)
	}
	t.Cleanup(e.Close)
	// Readiness is the port accepting connections: /health would need the client certificate.
	err := waitFor(e.proc, 20*time.Second, func(ctx context.Context) error {
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return conn.Close()
	})
	if err != nil {
		t.Fatalf("etcd (TLS): %v", err)
	}
	return e
}
