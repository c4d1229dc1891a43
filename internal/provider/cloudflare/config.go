package cloudflare

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults and limits, as external-dns and the Cloudflare API have them.
const (
	DefaultRecordsPerPage  = 100
	MaxRecordsPerPage      = 5000
	DefaultBatchChangeSize = 200
	// DefaultRequestsPerSecond is Cloudflare's documented budget, 1200 requests per 5 minutes per user.
	DefaultRequestsPerSecond = 4.0
	// DefaultBaseURL is the API's production endpoint (the SDK's).
	DefaultBaseURL = "https://api.cloudflare.com/client/v4/"
	// DefaultTimeout bounds one request, so that an API that does not answer fails a sync instead of
	// hanging it.
	DefaultTimeout = 30 * time.Second
	// zonesPerPage is the most zones one page lists.
	zonesPerPage = 50
)

// Environment variables, as external-dns reads them.
const (
	envAPIToken = "CF_API_TOKEN"
	envAPIKey   = "CF_API_KEY"
	envAPIEmail = "CF_API_EMAIL"
	envBaseURL  = "CLOUDFLARE_BASE_URL"
)

// Config configures one provider instance; each field mirrors an external-dns flag or variable.
type Config struct {
	// Getenv reads CF_API_TOKEN (or CF_API_KEY and CF_API_EMAIL) and CLOUDFLARE_BASE_URL; os.Getenv
	// when nil.
	Getenv func(string) string
	// DomainFilter (--domain-filter) selects the zones and names; ZoneIDFilter (--zone-id-filter)
	// names the zones by id instead, as external-dns does.
	DomainFilter, ZoneIDFilter []string
	// Proxied is --cloudflare-proxied: the default of the cloudflare-proxied annotation.
	Proxied bool
	// RecordsPerPage is --cloudflare-dns-records-per-page.
	RecordsPerPage int
	// Comment is --cloudflare-record-comment: the default of the cloudflare-record-comment annotation.
	Comment string
	// RegionalServices (--cloudflare-regional-services) keeps a regional hostname per A, AAAA and CNAME
	// name; RegionKey (--cloudflare-region-key) is the default of the cloudflare-region-key annotation
	// and switches Regional Services on when set.
	RegionalServices bool
	RegionKey        string
	// CustomHostnames (--cloudflare-custom-hostnames) keeps the custom hostnames (Cloudflare for SaaS)
	// that the cloudflare-custom-hostname annotation names, created with
	// CustomHostnamesMinTLSVersion and CustomHostnamesCertificateAuthority ("none": the API's choice).
	CustomHostnames                     bool
	CustomHostnamesMinTLSVersion        string
	CustomHostnamesCertificateAuthority string
	// BatchChangeSize (--batch-change-size) bounds the record changes of one batch request;
	// BatchChangeInterval (--batch-change-interval) is the pause between two of one sync.
	BatchChangeSize     int
	BatchChangeInterval time.Duration
	// Accounts holds the request budgets, one per account; a fresh set when nil.
	Accounts *accounts
	// Timeout bounds each request (DefaultTimeout when zero).
	Timeout time.Duration
	Logger  *slog.Logger
}

// credentials are the API credentials: a token, or a global API key with its e-mail. They are never
// logged, printed or put into an error.
type credentials struct {
	token, key, email string
}

// String hides the secrets.
func (c credentials) String() string {
	if c.token != "" {
		return "api-token=<redacted>"
	}
	return "api-key=<redacted> api-email=<redacted>"
}

// id names the account the credentials belong to (with the endpoint) without revealing them.
func (c credentials) id(base string) string {
	h := sha256.Sum256([]byte(base + "\x00" + c.token + "\x00" + c.key + "\x00" + c.email))
	return hex.EncodeToString(h[:8])
}

// readCredentials reads the credentials as external-dns does: CF_API_TOKEN, whose "file:PATH" form
// names a file holding the token, else CF_API_KEY and CF_API_EMAIL together.
func readCredentials(getenv func(string) string) (credentials, error) {
	if tok := getenv(envAPIToken); tok != "" {
		path, isFile := strings.CutPrefix(tok, "file:")
		if !isFile {
			return credentials{token: strings.TrimSpace(tok)}, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			// The path, never the content, is named.
			return credentials{}, fmt.Errorf("%s=file:%s: %w", envAPIToken, path, unwrapPath(err))
		}
		t := strings.TrimSpace(string(b))
		if t == "" {
			return credentials{}, fmt.Errorf("%s=file:%s: the file is empty", envAPIToken, path)
		}
		return credentials{token: t}, nil
	}
	key, email := getenv(envAPIKey), getenv(envAPIEmail)
	if key == "" || email == "" {
		return credentials{}, fmt.Errorf("no credentials: set %s (or %s=file:PATH), or both %s and %s", envAPIToken, envAPIToken, envAPIKey, envAPIEmail)
	}
	return credentials{key: strings.TrimSpace(key), email: strings.TrimSpace(email)}, nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// baseURL is CLOUDFLARE_BASE_URL (as the SDK reads it), else the production endpoint. It ends in
// "/": request paths are relative to it.
func baseURL(getenv func(string) string) (string, error) {
	raw := strings.TrimSpace(getenv(envBaseURL))
	if raw == "" {
		return DefaultBaseURL, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s=%q: expected a URL like https://api.cloudflare.com/client/v4/", envBaseURL, raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("%s: credentials in the URL are not supported; use %s", envBaseURL, envAPIToken)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}
