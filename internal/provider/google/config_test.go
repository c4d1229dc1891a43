package google

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
)

// CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS takes a host URL or gcloud's form with the API path; anything
// else is refused naming the variable.
func TestAPIEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   DefaultEndpoint,
		"http://127.0.0.1:8080":              "http://127.0.0.1:8080/",
		"http://127.0.0.1:8080/":             "http://127.0.0.1:8080/",
		"https://dns.googleapis.com/dns/v1/": "https://dns.googleapis.com/",
		"https://dns.googleapis.com/dns/v1":  "https://dns.googleapis.com/",
		"https://gw.example.net/google/":     "https://gw.example.net/google/",
	} {
		got, err := apiEndpoint(func(string) string { return in })
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"dns.googleapis.com", "ftp://x/", "https://u:p@x/", "https://x/?a=b"} {
		if _, err := apiEndpoint(func(string) string { return in }); err == nil || !strings.Contains(err.Error(), envEndpoint) {
			t.Errorf("%q: %v, want an error naming %s", in, err, envEndpoint)
		}
	}
}

// Without --google-project the metadata server is asked (never in tests: the question is injected);
// when it cannot answer, the error says what to set.
func TestProjectRequiredOffGCP(t *testing.T) {
	_, base, key := emulator(t, googlednsemu.Options{})
	_, err := New(testCtx(t), Config{Getenv: env(base, key), ProjectFromMetadata: func(context.Context) (string, error) {
		return "", errors.New("metadata: not on GCE")
	}})
	if err == nil || !strings.Contains(err.Error(), "set --google-project=PROJECT_ID") || !strings.Contains(err.Error(), "not on GCE") {
		t.Fatalf("New without a project: %v", err)
	}
	p, err := New(testCtx(t), Config{Getenv: env(base, key), ProjectFromMetadata: func(context.Context) (string, error) {
		return "from-metadata", nil
	}})
	if err != nil || p.project != "from-metadata" {
		t.Fatalf("project from the metadata server: %v", err)
	}
}

// A key file that cannot be read or used is named by its path; its content (a private key) is never
// in the error.
func TestCredentialsErrorsNameThePathOnly(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"type":"service_account","private_key":"SECRET-KEY-MATERIAL"`), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{bad: "not a usable credentials file", filepath.Join(dir, "missing.json"): "no such file"} {
		_, err := New(testCtx(t), Config{Project: "p", Getenv: func(k string) string {
			if k == envCredentials {
				return path
			}
			return ""
		}})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v", path, err)
		}
	}
}
