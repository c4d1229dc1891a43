package cloudflare

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// emulator starts a Cloudflare emulator for the test and returns it with its API base URL.
func emulator(t *testing.T, opts cloudflareemu.Options) (*cloudflareemu.Server, string) {
	t.Helper()
	emu := cloudflareemu.New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	return emu, srv.URL + cloudflareemu.APIPrefix
}

// seedZones creates zones and returns their ids by name.
func seedZones(t *testing.T, emu *cloudflareemu.Server, zones ...cloudflareemu.SeedZone) map[string]string {
	t.Helper()
	got, err := emu.Seed(cloudflareemu.Seed{Zones: zones})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	ids := map[string]string{}
	for _, z := range got {
		ids[z.Name] = z.ID
	}
	return ids
}

// env is the process environment a provider sees: a token and the emulator's URL.
func env(base string, extra ...string) func(string) string {
	m := map[string]string{envAPIToken: "x", envBaseURL: base}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return func(k string) string { return m[k] }
}

// newTestProvider returns a provider against base, with no pause between batches.
func newTestProvider(t *testing.T, base string, cfg Config) *Provider {
	t.Helper()
	if cfg.Getenv == nil {
		cfg.Getenv = env(base)
	}
	if cfg.Accounts == nil {
		cfg.Accounts = newAccounts(1000, nil)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// records returns the emulator's records of a zone as "name type content ttl proxied comment tags".
func dumpZone(emu *cloudflareemu.Server, zone string) []cloudflareemu.RecordDump {
	for _, z := range emu.Dump() {
		if z.Name == zone {
			return z.Records
		}
	}
	return nil
}

func ep(name, typ string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewWithTTL(name, typ, ttl, targets...)
}

// adjustAndApply adjusts the desired endpoints as the controller does, then applies them as creates.
func adjustAndApply(t *testing.T, p *Provider, c *plan.Changes) error {
	t.Helper()
	ctx := testCtx(t)
	var err error
	if c.Create, err = p.AdjustEndpoints(ctx, c.Create); err != nil {
		t.Fatal(err)
	}
	if c.UpdateNew, err = p.AdjustEndpoints(ctx, c.UpdateNew); err != nil {
		t.Fatal(err)
	}
	return p.ApplyChanges(ctx, c)
}

func emuOptionsWithToken(tokens ...string) cloudflareemu.Options {
	return cloudflareemu.Options{APITokens: tokens}
}

func newServer(h http.Handler) *httptest.Server { return httptest.NewServer(h) }
