package cloudflare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Credentials as external-dns reads them: CF_API_TOKEN (or its file: form), else CF_API_KEY with
// CF_API_EMAIL. Errors and String never show a secret.
func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("  s3cr3t-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	c, err := readCredentials(getenv(envAPIToken, "file:"+file))
	if err != nil || c.token != "s3cr3t-from-file" {
		t.Fatalf("file: token: %+v %v", c, err)
	}
	if s := c.String(); strings.Contains(s, "s3cr3t") {
		t.Errorf("String shows the token: %s", s)
	}
	c, err = readCredentials(getenv(envAPIKey, "k3y", envAPIEmail, "me@example.com"))
	if err != nil || c.key != "k3y" || c.email != "me@example.com" || strings.Contains(c.String(), "k3y") {
		t.Fatalf("key and e-mail: %+v %v", c, err)
	}
	for name, g := range map[string]func(string) string{
		"no credentials": getenv(envAPIKey, "k3y"),
		"missing file":   getenv(envAPIToken, "file:"+filepath.Join(dir, "nope")),
		"empty file":     getenv(envAPIToken, "file:"+empty),
	} {
		_, err := readCredentials(g)
		if err == nil || strings.Contains(err.Error(), "k3y") || !strings.Contains(err.Error(), "CF_API") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The API key is sent, never shown, in an error the API answers.
	if _, err := New(Config{Getenv: getenv(envAPIToken, "x", envBaseURL, "ftp://h/")}); err == nil || !strings.Contains(err.Error(), envBaseURL) {
		t.Errorf("bad base URL: %v", err)
	}
}

// The token reaches the API as a bearer token, and a refused token's error does not contain it.
func TestTokenIsSentNotShown(t *testing.T) {
	emu, base := emulator(t, emuOptionsWithToken("right-token"))
	_ = emu
	p := newTestProvider(t, base, Config{Getenv: env(base, envAPIToken, "wrong-token-s3cr3t")})
	_, err := p.Records(testCtx(t))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
	p = newTestProvider(t, base, Config{Getenv: env(base, envAPIToken, "right-token")})
	if _, err := p.Records(testCtx(t)); err != nil {
		t.Fatalf("right token: %v", err)
	}
}
