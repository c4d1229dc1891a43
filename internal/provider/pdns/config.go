package pdns

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults, as in external-dns.
const (
	DefaultServer   = "http://localhost:8081"
	DefaultServerID = "localhost"
	// DefaultTimeout bounds every API request, so an unreachable PowerDNS fails a reconcile instead of
	// hanging it.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxPatchBytes keeps one PATCH body well under PowerDNS's webserver-max-bodysize (2 MB by
	// default); a zone's changes that do not fit are sent in several PATCHes split at name boundaries.
	DefaultMaxPatchBytes = 1 << 20
	// DefaultTTL is written when an endpoint has no TTL: PowerDNS requires one on every REPLACE.
	DefaultTTL = 300
)

// Config configures the provider; each field mirrors an external-dns flag where one exists.
type Config struct {
	// Server is the API base URL (--pdns-server), e.g. http://127.0.0.1:8081. A path prefix is kept
	// (for an API behind a reverse proxy at https://host/pdns).
	Server string
	// ServerID is the PowerDNS server id in API paths (--pdns-server-id), "localhost" by default.
	ServerID string
	// APIKey is sent as X-API-Key (--pdns-api-key, or EXTERNAL_DNS_PDNS_API_KEY). It is never logged,
	// printed or put into an error.
	APIKey string
	// APIKeyFile, when set, holds the API key (surrounding white space dropped), so that the key need
	// not appear in the command line or the environment. Set APIKey or APIKeyFile, not both.
	APIKeyFile string
	// SkipTLSVerify turns off server certificate verification (--pdns-skip-tls-verify).
	SkipTLSVerify bool
	// CAFile verifies the server instead of the system roots (--tls-ca). ClientCertFile and
	// ClientKeyFile present a client certificate (--tls-client-cert, --tls-client-cert-key); they go
	// together. All three apply to https servers only.
	CAFile, ClientCertFile, ClientKeyFile string
	// DomainFilter lists the domains to manage (--domain-filter). A server zone is managed when it lies
	// at or below one of them or contains one; only names at or below them are listed and changed.
	// Empty means every zone on the server.
	DomainFilter []string
	// Timeout bounds each API request (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxPatchBytes bounds the JSON body of one PATCH (DefaultMaxPatchBytes when zero).
	MaxPatchBytes int
}

// String describes the configuration without the API key.
func (c Config) String() string {
	key := "<unset>"
	if c.APIKey != "" {
		key = "<redacted>"
	} else if c.APIKeyFile != "" {
		key = "file:" + c.APIKeyFile
	}
	return fmt.Sprintf("pdns{server=%s server-id=%s api-key=%s zones=%s skip-tls-verify=%t}",
		c.Server, c.ServerID, key, strings.Join(c.DomainFilter, ","), c.SkipTLSVerify)
}

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if c.Server == "" {
		c.Server = DefaultServer
	}
	if c.ServerID == "" {
		c.ServerID = DefaultServerID
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxPatchBytes <= 0 {
		c.MaxPatchBytes = DefaultMaxPatchBytes
	}
	return c
}

// apiKey returns the key from APIKey or APIKeyFile.
func (c Config) apiKey() (string, error) {
	switch {
	case c.APIKey != "" && c.APIKeyFile != "":
		return "", errors.New("--pdns-api-key and the API key file are both set; use one")
	case c.APIKeyFile != "":
		b, err := os.ReadFile(c.APIKeyFile)
		if err != nil {
			// The path, not the content, is named.
			return "", fmt.Errorf("pdns API key file: %w", err)
		}
		k := strings.TrimSpace(string(b))
		if k == "" {
			return "", fmt.Errorf("pdns API key file %s is empty", c.APIKeyFile)
		}
		return k, nil
	case c.APIKey == "":
		return "", errors.New("--pdns-api-key: an API key is required (PowerDNS answers 401 without one)")
	}
	return c.APIKey, nil
}

// baseURL parses Server. Only http and https are accepted.
func (c Config) baseURL() (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(c.Server))
	if err != nil {
		return nil, fmt.Errorf("--pdns-server: %q is not a URL like http://host:8081: %v", c.Server, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("--pdns-server: %q has scheme %q, only http and https are supported", c.Server, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("--pdns-server: %q has no host; write it like http://host:8081", c.Server)
	}
	if u.User != nil {
		return nil, fmt.Errorf("--pdns-server: credentials in the URL are not supported; use --pdns-api-key")
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// tlsConfig builds the client TLS settings: TLS 1.2 at least, the CA file (else the system pool), an
// optional client certificate and the verification switch.
func (c Config) tlsConfig() (*tls.Config, error) {
	if (c.ClientCertFile == "") != (c.ClientKeyFile == "") {
		return nil, errors.New("--tls-client-cert and --tls-client-cert-key must be set together")
	}
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: c.SkipTLSVerify, //nolint:gosec // explicitly requested with --pdns-skip-tls-verify
	}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate found", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.ClientCertFile != "" {
		cert, err := tls.LoadX509KeyPair(c.ClientCertFile, c.ClientKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-cert/--tls-client-cert-key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// httpClient returns the HTTP client for the server: its own transport (proxies from the environment,
// as external-dns), TLS settings for https, and the request timeout.
func (c Config) httpClient() (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tc, err := c.tlsConfig()
	if err != nil {
		return nil, err
	}
	tr.TLSClientConfig = tc
	return &http.Client{Transport: tr, Timeout: c.Timeout}, nil
}
