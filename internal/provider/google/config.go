package google

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"cloud.google.com/go/compute/metadata"
	"golang.org/x/oauth2"
	googleauth "golang.org/x/oauth2/google"
	dns "google.golang.org/api/dns/v1"
)

// Defaults and limits, as external-dns and Cloud DNS have them.
const (
	DefaultBatchChangeSize     = 1000
	DefaultBatchChangeInterval = time.Second
	// DefaultTTL is the TTL of a record set written without one (external-dns's for Google).
	DefaultTTL = 300
	// DefaultRequestsPerSecond is this process's budget per project. Google shows Cloud DNS quotas per
	// project in the console only; 10/s is a chosen value, well under the defaults seen there, and a
	// 429 slows it down further.
	DefaultRequestsPerSecond = 10.0
	// DefaultTimeout bounds one request, so that an API that does not answer fails a sync instead of
	// hanging it.
	DefaultTimeout = 30 * time.Second
	// DefaultEndpoint is the API's production endpoint (the SDK's base path).
	DefaultEndpoint = "https://dns.googleapis.com/"
	// metadataTimeout bounds the question to the metadata server when --google-project is unset.
	metadataTimeout = 5 * time.Second
)

// Zone visibilities, as Cloud DNS names them.
const (
	VisibilityPublic  = "public"
	VisibilityPrivate = "private"
)

// Environment variables.
const (
	// envCredentials is the Application Default Credentials key file.
	envCredentials = "GOOGLE_APPLICATION_CREDENTIALS"
	// envEndpoint is gcloud's override of the Cloud DNS API endpoint; zonekeeper reads it too, so one
	// variable points both at an emulator. external-dns has no endpoint setting.
	envEndpoint = "CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS"
)

// Config configures one provider instance; each field mirrors an external-dns flag or variable.
type Config struct {
	// Project is --google-project; when empty it is read from the GCP metadata server.
	Project string
	// ZoneVisibility is --google-zone-visibility: public, private or "" (both).
	ZoneVisibility string
	// BatchChangeSize (--google-batch-change-size) bounds the additions plus deletions of one change;
	// BatchChangeInterval (--google-batch-change-interval) is the pause after each change.
	BatchChangeSize     int
	BatchChangeInterval time.Duration
	// DomainFilter (--domain-filter) selects the zones and names; ZoneIDFilter (--zone-id-filter)
	// selects zones by id or name (a suffix of either, as external-dns matches them).
	DomainFilter, ZoneIDFilter []string
	// Getenv reads GOOGLE_APPLICATION_CREDENTIALS and CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS; os.Getenv
	// when nil.
	Getenv func(string) string
	// TokenSource replaces Application Default Credentials when set.
	TokenSource oauth2.TokenSource
	// ProjectFromMetadata asks the metadata server for the project; metadata.ProjectIDWithContext
	// when nil.
	ProjectFromMetadata func(context.Context) (string, error)
	// Budgets holds the request budgets, one per project; a fresh set when nil.
	Budgets *budgets
	// Timeout bounds each request (DefaultTimeout when zero).
	Timeout time.Duration
	Logger  *slog.Logger
}

// apiEndpoint is CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS, else the production endpoint, as the SDK's base
// path: the URL of the host, ending in "/". gcloud's form, with the API's "dns/v1/" path, is taken
// too.
func apiEndpoint(getenv func(string) string) (string, error) {
	raw := strings.TrimSpace(getenv(envEndpoint))
	if raw == "" {
		return DefaultEndpoint, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s=%q: expected a URL like https://dns.googleapis.com/", envEndpoint, raw)
	}
	if u.User != nil || u.RawQuery != "" {
		return "", fmt.Errorf("%s=%q: expected a URL without credentials or query", envEndpoint, raw)
	}
	p := strings.TrimSuffix(u.Path, "/") + "/"
	u.Path = strings.TrimSuffix(p, "dns/v1/")
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// project is --google-project, else the project of the metadata server (on GCP and GKE), else an
// error that says what to set.
func project(ctx context.Context, cfg Config) (string, error) {
	if p := strings.TrimSpace(cfg.Project); p != "" {
		return p, nil
	}
	ask := cfg.ProjectFromMetadata
	if ask == nil {
		ask = metadata.ProjectIDWithContext
	}
	ctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	p, err := ask(ctx)
	if err != nil || strings.TrimSpace(p) == "" {
		if err == nil {
			err = errors.New("empty answer")
		}
		return "", fmt.Errorf("--google-project is not set and the GCP metadata server did not give the project (%v): off GCP, set --google-project=PROJECT_ID (or EXTERNAL_DNS_GOOGLE_PROJECT)", err)
	}
	return strings.TrimSpace(p), nil
}

// tokenSource is Application Default Credentials for the read-write Cloud DNS scope: the key file of
// GOOGLE_APPLICATION_CREDENTIALS (as Getenv reads it), else what the Google libraries find (gcloud's
// user credentials, the workload's service account on GCP, GKE Workload Identity). No token is
// fetched here.
func tokenSource(ctx context.Context, cfg Config) (oauth2.TokenSource, error) {
	if cfg.TokenSource != nil {
		return cfg.TokenSource, nil
	}
	if path := strings.TrimSpace(cfg.Getenv(envCredentials)); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%s=%s: %w", envCredentials, path, err)
		}
		// The file's content is never put into an error: it holds a private key.
		creds, err := googleauth.CredentialsFromJSON(ctx, b, dns.NdevClouddnsReadwriteScope) //nolint:staticcheck // external-dns reads the same key types
		if err != nil {
			return nil, fmt.Errorf("%s=%s: not a usable credentials file", envCredentials, path)
		}
		return creds.TokenSource, nil
	}
	creds, err := googleauth.FindDefaultCredentials(ctx, dns.NdevClouddnsReadwriteScope)
	if err != nil {
		return nil, fmt.Errorf("no Application Default Credentials: set %s to a service-account key file, or run on GCP/GKE with a service account (Workload Identity): %w", envCredentials, err)
	}
	return creds.TokenSource, nil
}
