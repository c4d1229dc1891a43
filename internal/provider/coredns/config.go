package coredns

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults, as in external-dns.
const (
	DefaultPrefix   = "/skydns/"
	DefaultEndpoint = "http://localhost:2379"
	// DefaultTimeout bounds every etcd operation, so an unreachable etcd fails a reconcile instead of
	// hanging it.
	DefaultTimeout = 5 * time.Second
	// DefaultMaxTxnOps is etcd's default --max-txn-ops.
	DefaultMaxTxnOps = 128
	// DefaultPageSize is how many keys one range read of Records returns at most.
	DefaultPageSize = 5000
)

// Config configures the provider. Build it with ConfigFromEnv (external-dns's environment variables)
// or by hand.
type Config struct {
	// Endpoints are etcd client URLs; all must share the scheme (http or https).
	Endpoints []string
	// CAFile, CertFile, KeyFile and TLSServerName apply to https endpoints. CertFile and KeyFile go
	// together.
	CAFile, CertFile, KeyFile, TLSServerName string
	// TLSInsecure skips server certificate verification.
	TLSInsecure bool
	// Username and Password authenticate to etcd. The password is never logged or printed.
	Username, Password string
	// Prefix is the etcd path CoreDNS serves (its `path`), "/skydns/" by default.
	Prefix string
	// DomainFilter lists the zones the provider manages. Changes for other names are rejected, and
	// Records only lists names inside them. Empty means every name under Prefix. A name equal to a zone
	// is that zone's apex (see README: apex records).
	DomainFilter []string
	// Timeout bounds each etcd operation (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxTxnOps is the etcd server's --max-txn-ops (DefaultMaxTxnOps when zero).
	MaxTxnOps int
	// PageSize is the number of keys per range read in Records (DefaultPageSize when zero).
	PageSize int
}

// String describes the configuration without the password.
func (c Config) String() string {
	pw := ""
	if c.Password != "" {
		pw = " password=<redacted>"
	}
	return fmt.Sprintf("coredns{endpoints=%s prefix=%s zones=%s user=%q%s tls-insecure=%t}",
		strings.Join(c.Endpoints, ","), c.Prefix, strings.Join(c.DomainFilter, ","), c.Username, pw, c.TLSInsecure)
}

// ConfigFromEnv reads the etcd settings from the environment, like external-dns: ETCD_URLS
// (comma-separated, default http://localhost:2379), ETCD_CA_FILE, ETCD_CERT_FILE, ETCD_KEY_FILE,
// ETCD_TLS_SERVER_NAME, ETCD_TLS_INSECURE (true, yes or 1), ETCD_USERNAME and ETCD_PASSWORD. Prefix
// and DomainFilter come from flags and are left for the caller to set.
func ConfigFromEnv() (Config, error) {
	c := Config{
		CAFile:        os.Getenv("ETCD_CA_FILE"),
		CertFile:      os.Getenv("ETCD_CERT_FILE"),
		KeyFile:       os.Getenv("ETCD_KEY_FILE"),
		TLSServerName: os.Getenv("ETCD_TLS_SERVER_NAME"),
		Username:      os.Getenv("ETCD_USERNAME"),
		Password:      os.Getenv("ETCD_PASSWORD"),
		Prefix:        DefaultPrefix,
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("ETCD_TLS_INSECURE"))) {
	case "true", "yes", "1":
		c.TLSInsecure = true
	}
	urls := os.Getenv("ETCD_URLS")
	if strings.TrimSpace(urls) == "" {
		urls = DefaultEndpoint
	}
	for _, u := range strings.Split(urls, ",") {
		if u = strings.TrimSpace(u); u != "" {
			c.Endpoints = append(c.Endpoints, u)
		}
	}
	if _, err := c.secure(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// secure checks the endpoints and reports whether they use TLS. The scheme of the first URL decides;
// the others must agree, since the etcd client uses one transport for all of them.
func (c Config) secure() (bool, error) {
	if len(c.Endpoints) == 0 {
		return false, errors.New("ETCD_URLS: no etcd endpoint")
	}
	var scheme string
	for i, raw := range c.Endpoints {
		u, err := url.Parse(raw)
		if err != nil {
			return false, fmt.Errorf("ETCD_URLS: %q is not a URL like http://host:2379: %v", raw, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return false, fmt.Errorf("ETCD_URLS: %q has scheme %q, only http and https are supported", raw, u.Scheme)
		}
		if u.Host == "" {
			return false, fmt.Errorf("ETCD_URLS: %q has no host; write it like http://host:2379", raw)
		}
		if i == 0 {
			scheme = u.Scheme
		} else if u.Scheme != scheme {
			return false, fmt.Errorf("ETCD_URLS: %q uses %s but the first URL uses %s; all must agree", raw, u.Scheme, scheme)
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return false, errors.New("ETCD_CERT_FILE and ETCD_KEY_FILE must be set together")
	}
	return scheme == "https", nil
}

// tlsConfig builds the client TLS settings for https endpoints: TLS 1.2 at least, the CA file (else
// the system pool), an optional client certificate, server name and verification switch.
func (c Config) tlsConfig() (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         c.TLSServerName,
		InsecureSkipVerify: c.TLSInsecure, //nolint:gosec // explicitly requested with ETCD_TLS_INSECURE
	}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ETCD_CA_FILE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ETCD_CA_FILE %s: no PEM certificate found", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("ETCD_CERT_FILE/ETCD_KEY_FILE: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if len(c.Endpoints) == 0 {
		c.Endpoints = []string{DefaultEndpoint}
	}
	c.Prefix = normalizePrefix(c.Prefix)
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxTxnOps <= 0 {
		c.MaxTxnOps = DefaultMaxTxnOps
	}
	if c.PageSize <= 0 {
		c.PageSize = DefaultPageSize
	}
	return c
}
