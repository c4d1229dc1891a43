package mirror

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// Side is how to reach one etcd (the source or the destination).
type Side struct {
	// Name is "src" or "dst": the flag prefix, used in messages.
	Name string
	// Endpoints are etcd client URLs (http://host:2379, https://host:2379) or host:port.
	Endpoints []string
	// Username and Password authenticate to etcd. The password is never logged.
	Username, Password string
	// CAFile, CertFile, KeyFile, ServerName and Insecure configure TLS. TLS is used when the endpoints
	// are https, or are written without a scheme and one of these is set.
	CAFile, CertFile, KeyFile, ServerName string
	Insecure                              bool
}

// String describes the side without its password.
func (s Side) String() string {
	pw := ""
	if s.Password != "" {
		pw = " password=<redacted>"
	}
	return fmt.Sprintf("%s{endpoints=%s user=%q%s tls=%t}", s.Name, strings.Join(s.Endpoints, ","), s.Username, pw, s.usesTLS())
}

func (s Side) tlsFilesSet() bool {
	return s.CAFile != "" || s.CertFile != "" || s.KeyFile != "" || s.ServerName != "" || s.Insecure
}

func (s Side) usesTLS() bool {
	secure, _ := s.scheme()
	return secure
}

// scheme checks the endpoints and reports whether TLS is used. All endpoints must agree, since the
// etcd client uses one transport for all of them.
func (s Side) scheme() (bool, error) {
	flag := "--" + s.Name + "-endpoints"
	if len(s.Endpoints) == 0 {
		return false, fmt.Errorf("%s: at least one etcd endpoint is required", flag)
	}
	var first string
	for i, raw := range s.Endpoints {
		scheme := ""
		if strings.Contains(raw, "://") {
			u, err := url.Parse(raw)
			if err != nil {
				return false, fmt.Errorf("%s: %q is not a URL like http://host:2379: %v", flag, raw, err)
			}
			if u.Scheme != "http" && u.Scheme != "https" {
				return false, fmt.Errorf("%s: %q has scheme %q; only http and https are supported", flag, raw, u.Scheme)
			}
			if u.Host == "" {
				return false, fmt.Errorf("%s: %q has no host; write it like http://host:2379", flag, raw)
			}
			scheme = u.Scheme
		} else if raw == "" {
			return false, fmt.Errorf("%s: empty endpoint", flag)
		}
		if i == 0 {
			first = scheme
		} else if scheme != first {
			return false, fmt.Errorf("%s: %q and %q use different schemes; all must agree", flag, s.Endpoints[0], raw)
		}
	}
	switch first {
	case "https":
		return true, nil
	case "http":
		if s.tlsFilesSet() {
			return false, fmt.Errorf("--%s-ca-file/--%s-cert-file/--%s-key-file/--%s-tls-server-name/--%s-tls-insecure need https:// endpoints, but %s is %q",
				s.Name, s.Name, s.Name, s.Name, s.Name, flag, s.Endpoints[0])
		}
		return false, nil
	}
	return s.tlsFilesSet(), nil
}

// TLSConfig returns the client TLS settings, or nil when the side does not use TLS: TLS 1.2 at least,
// the CA file (else the system pool), an optional client certificate, the server name, and
// verification unless Insecure.
func (s Side) TLSConfig() (*tls.Config, error) {
	secure, err := s.scheme()
	if err != nil || !secure {
		return nil, err
	}
	if (s.CertFile == "") != (s.KeyFile == "") {
		return nil, fmt.Errorf("--%s-cert-file and --%s-key-file must be set together", s.Name, s.Name)
	}
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         s.ServerName,
		InsecureSkipVerify: s.Insecure, //nolint:gosec // explicitly requested with --*-tls-insecure
	}
	if s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--%s-ca-file: %w", s.Name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--%s-ca-file %s: no PEM certificate found", s.Name, s.CAFile)
		}
		tc.RootCAs = pool
	}
	if s.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("--%s-cert-file/--%s-key-file: %w", s.Name, s.Name, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// Client builds the etcd client. It connects lazily: an unreachable etcd shows up in the first call.
func (s Side) Client(timeout time.Duration) (*clientv3.Client, error) {
	tc, err := s.TLSConfig()
	if err != nil {
		return nil, err
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   s.Endpoints,
		DialTimeout: timeout,
		Username:    s.Username,
		Password:    s.Password,
		TLS:         tc,
		// The client logs every failed reconnect at warn level; the mirror reports failures itself.
		Logger: zap.NewNop(),
		// Reconnect quickly after an etcd restart (gRPC's default backoff grows to two minutes).
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
			MinConnectTimeout: timeout,
		})},
	})
	if err != nil {
		return nil, fmt.Errorf("--%s-endpoints %s: %w", s.Name, strings.Join(s.Endpoints, ","), err)
	}
	return c, nil
}
