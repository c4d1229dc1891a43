package cloudflare

import (
	"net/http"
	"sync"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
)

// The provider builds the SDK's services itself instead of through the root client; the root's
// NewClient also reads the process environment, and so must the provider, or a request changes.
// The token zonekeeper reads (CF_API_TOKEN) still wins over the SDK's CLOUDFLARE_API_TOKEN.
func TestSDKEnvironmentIsRead(t *testing.T) {
	t.Setenv("CLOUDFLARE_CUSTOM_HEADERS", "X-Zonekeeper-Test: one\nnot a header\nX-Other:two ")
	t.Setenv("CLOUDFLARE_API_USER_SERVICE_KEY", "service-key")
	t.Setenv("CLOUDFLARE_API_TOKEN", "sdk-token")
	var mu sync.Mutex
	var seen http.Header
	emu := cloudflareemu.New(cloudflareemu.Options{})
	srv := newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p := newTestProvider(t, srv.URL+cloudflareemu.APIPrefix, Config{})
	if err := p.Probe(testCtx(t)); err != nil {
		t.Fatalf("Probe: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for name, want := range map[string]string{
		"X-Zonekeeper-Test": "one", "X-Other": "two",
		"X-Auth-User-Service-Key": "service-key", "Authorization": "Bearer x",
	} {
		if got := seen.Get(name); got != want {
			t.Errorf("header %s = %q, want %q (all: %v)", name, got, want, seen)
		}
	}
}
