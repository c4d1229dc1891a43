package google

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

const testProject = "emu-project"

// emulator starts a Cloud DNS emulator for the test and returns it with its endpoint and a key file
// whose token_uri is the emulator's.
func emulator(t *testing.T, opts googlednsemu.Options) (emu *googlednsemu.Server, base, keyFile string) {
	t.Helper()
	emu = googlednsemu.New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	keyFile = filepath.Join(t.TempDir(), "sa.json")
	if err := emuproxy.WriteGoogleServiceAccountKey(keyFile, srv.URL+googlednsemu.TokenPath, testProject); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddProject(testProject); err != nil {
		t.Fatal(err)
	}
	return emu, srv.URL + "/", keyFile
}

// seedZones creates zones in the test project.
func seedZones(t *testing.T, emu *googlednsemu.Server, zones ...googlednsemu.SeedZone) {
	t.Helper()
	if _, err := emu.Seed(googlednsemu.Seed{Projects: []googlednsemu.SeedProject{{ID: testProject, Zones: zones}}}); err != nil {
		t.Fatalf("seed: %v", err)
	}
}

// env is the process environment a provider sees: the key file and the emulator's endpoint.
func env(base, keyFile string) func(string) string {
	m := map[string]string{envCredentials: keyFile, envEndpoint: base}
	return func(k string) string { return m[k] }
}

// newTestProvider returns a provider against the emulator, with no pause between changes and a
// budget that does not slow the tests.
func newTestProvider(t *testing.T, base, keyFile string, cfg Config) *Provider {
	t.Helper()
	if cfg.Getenv == nil {
		cfg.Getenv = env(base, keyFile)
	}
	if cfg.Project == "" {
		cfg.Project = testProject
	}
	if cfg.Budgets == nil {
		cfg.Budgets = newBudgets(1000, nil)
	}
	cfg.ProjectFromMetadata = func(context.Context) (string, error) {
		t.Fatal("the metadata server was asked")
		return "", nil
	}
	p, err := New(testCtx(t), cfg)
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

// dumpZone returns the emulator's record sets of a zone (by zone name).
func dumpZone(emu *googlednsemu.Server, name string) []googlednsemu.RRSetDump {
	for _, z := range emu.Dump() {
		if z.Name == name {
			return z.RRSets
		}
	}
	return nil
}

// googleClient is another writer: a Cloud DNS client of its own against the emulator.
func googleClient(t *testing.T, base, keyFile string) *dns.Service {
	t.Helper()
	svc, err := dns.NewService(testCtx(t), option.WithEndpoint(base), option.WithCredentialsFile(keyFile)) //nolint:staticcheck // a test key
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func ep(name, typ string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewWithTTL(name, typ, ttl, targets...)
}

// applyCreates lists, then creates the endpoints, as a sync does.
func applyCreates(t *testing.T, p *Provider, eps ...*endpoint.Endpoint) error {
	t.Helper()
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		return err
	}
	return p.ApplyChanges(ctx, &plan.Changes{Create: eps})
}
