package rfc2136

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
)

// tlsConfig builds the DNS-over-TLS client settings: TLS 1.2 at least, ALPN "dot" (RFC 7858), the CA
// file (else the system pool), an optional client certificate, and the verification switch.
func (c Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		NextProtos:         []string{"dot"},
		InsecureSkipVerify: c.SkipTLSVerify, //nolint:gosec // explicitly requested with --rfc2136-skip-tls-verify
	}
	if c.TLSCAFile != "" {
		pem, err := os.ReadFile(c.TLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate found", c.TLSCAFile)
		}
		tc.RootCAs = pool
	}
	if (c.TLSClientCert == "") != (c.TLSClientKey == "") {
		return nil, errors.New("--tls-client-cert and --tls-client-cert-key must be set together")
	}
	if c.TLSClientCert != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSClientCert, c.TLSClientKey)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-cert/--tls-client-cert-key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// forServer returns the TLS settings for one server: the certificate must name the host given in
// --rfc2136-host (a name, or an IP address SAN).
func forServer(base *tls.Config, addr string) *tls.Config {
	if base == nil {
		return nil
	}
	tc := base.Clone()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		tc.ServerName = host
	}
	return tc
}
