package provider_test

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/azure"
	"github.com/zonekeeper/zonekeeper/internal/provider/builtin"
	"github.com/zonekeeper/zonekeeper/internal/provider/coredns"
	"github.com/zonekeeper/zonekeeper/internal/provider/google"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/pdns"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
	"github.com/zonekeeper/zonekeeper/internal/provider/rfc2136"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
	"github.com/zonekeeper/zonekeeper/internal/testbed/emuproxy"
)

// kindCase starts a kind's backend and returns the kind, its flags and its environment.
type kindCase struct {
	name  string
	start func(t *testing.T) (k provider.Kind, args []string, env provider.Env)
}

// batchCounter counts the change batches the registry sends, as the app's metrics wrapper sits.
type batchCounter struct {
	provider.Wrapped
	mu      sync.Mutex
	batches int
}

func (c *batchCounter) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	c.mu.Lock()
	c.batches++
	c.mu.Unlock()
	return c.Provider.ApplyChanges(ctx, changes)
}

// TestNoKindRewritesARecordForAnotherKindsProperty runs each kind that starts in-process or against
// the testbed, built as the app builds a view's provider (its Kind's flags and New, then
// OwnPropertiesOnly with its Kind's Properties), under the TXT registry and the controller. Sources
// copy every cloudflare-, aws-, scw- annotation to a property whichever kind runs, and the alias
// annotation to the un-namespaced alias property; a kind that does not read them lists the record
// without them. After a listing, the second sync must plan nothing: before the drop, google and azure
// rewrote the record and its TXT on every listing, and before alias was Route 53's (and a webhook's)
// alone, google, azure, coredns, pdns and rfc2136 did so for an A or CNAME record with alias=true or
// alias=false.
func TestNoKindRewritesARecordForAnotherKindsProperty(t *testing.T) {
	cases := []kindCase{
		{"google", startGoogle},
		{"azure", startAzure},
		{"inmemory", func(*testing.T) (provider.Kind, []string, provider.Env) {
			return (&inmemory.InMemoryFlags{}).Kind(), []string{"--inmemory-zone=example.com"}, provider.Env{}
		}},
		{"builtin", func(*testing.T) (provider.Kind, []string, provider.Env) {
			return (&builtin.BuiltinFlags{}).Kind(), []string{"--builtin-listen=127.0.0.1:0", "--builtin-zone=example.com"}, provider.Env{}
		}},
		{"coredns", startCoreDNS},
		{"pdns", func(t *testing.T) (provider.Kind, []string, provider.Env) {
			pd := testbed.StartPowerDNS(t, "example.com")
			return (&pdns.PDNSFlags{}).Kind(), []string{"--pdns-server=" + pd.APIURL, "--pdns-api-key=" + pd.APIKey}, provider.Env{}
		}},
		{"rfc2136", startRFC2136},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			k, args, env := c.start(t)
			k.Defaults()
			fs := flag.NewFlagSet(k.Name, flag.ContinueOnError)
			k.Flags(fs)
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			env.Log = slog.New(slog.DiscardHandler)
			env.DomainFilter = []string{"example.com"}
			env.Views = []provider.View{{}}
			if env.Getenv == nil {
				env.Getenv = func(string) string { return "" }
			}
			newProvider, err := k.New(ctx, env)
			if err != nil {
				t.Fatal(err)
			}
			p, err := newProvider(provider.View{})
			if err != nil {
				t.Fatal(err)
			}
			counter := &batchCounter{Wrapped: provider.Wrapped{Provider: p}}
			reg, err := txt.New(provider.OwnPropertiesOnly(counter, k.Properties), txt.Config{OwnerID: providertest.OwnerID, CacheInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			desired := providertest.FixedSource{
				endpoint.NewWithTTL("web.example.com", endpoint.RecordTypeA, 300, "192.0.2.1").
					WithProviderSpecific("aws/evaluate-target-health", "true").
					WithProviderSpecific("cloudflare/proxied", "true").
					WithProviderSpecific("external-dns.alpha.kubernetes.io/cloudflare-record-comment", "legacy").
					WithProviderSpecific("scw/anything", "x"),
				endpoint.NewWithTTL("alias-true.example.com", endpoint.RecordTypeA, 300, "192.0.2.2").WithProviderSpecific("alias", "true"),
				endpoint.NewWithTTL("alias-false.example.com", endpoint.RecordTypeA, 300, "192.0.2.3").WithProviderSpecific("alias", "false"),
				endpoint.NewWithTTL("alias-cname.example.com", endpoint.RecordTypeCNAME, 300, "web.example.com").WithProviderSpecific("alias", "true"),
			}
			ctrl := controller.New(desired, reg, controller.Settings{OwnerID: providertest.OwnerID, Policy: plan.PolicySync,
				ManagedRecordTypes: []string{endpoint.RecordTypeA, endpoint.RecordTypeCNAME}}, slog.New(slog.DiscardHandler))
			if _, err := ctrl.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				reg.Invalidate() // the next sync plans against a listing, not the cache its write patched
				out, err := ctrl.RunOnce(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if out.Changes.HasChanges() {
					t.Errorf("sync %d after the create, from a listing: plans %+v, want nothing", i+2, out.Changes)
				}
			}
			if counter.batches != 1 {
				t.Errorf("%d change batches sent, want 1 (the create)", counter.batches)
			}
		})
	}
}

func startGoogle(t *testing.T) (provider.Kind, []string, provider.Env) {
	const project = "emu-project"
	emu := googlednsemu.New(googlednsemu.Options{})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	key := filepath.Join(t.TempDir(), "sa.json")
	if err := emuproxy.WriteGoogleServiceAccountKey(key, srv.URL+googlednsemu.TokenPath, project); err != nil {
		t.Fatal(err)
	}
	if err := emu.AddProject(project); err != nil {
		t.Fatal(err)
	}
	if _, err := emu.Seed(googlednsemu.Seed{Projects: []googlednsemu.SeedProject{{ID: project,
		Zones: []googlednsemu.SeedZone{{Name: "pub", DNSName: "example.com."}}}}}); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": key, "CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS": srv.URL + "/"}
	return (&google.GoogleFlags{}).Kind(), []string{"--google-project=" + project}, provider.Env{Getenv: func(k string) string { return vars[k] }}
}

func startAzure(t *testing.T) (provider.Kind, []string, provider.Env) {
	const sub, rg = "00000000-0000-0000-0000-000000000001", "rg-dns"
	ca, err := azurednsemu.NewTestCA(azurednsemu.DefaultTLSHosts...)
	if err != nil {
		t.Fatal(err)
	}
	emu := azurednsemu.New(azurednsemu.Options{Credentials: []azurednsemu.Credential{{TenantID: "t", ClientID: "c", ClientSecret: "s"}}})
	ts := httptest.NewUnstartedServer(emu)
	ts.TLS = ca.ServerTLS()
	ts.StartTLS()
	t.Cleanup(ts.Close)
	if err := emu.AddZone(false, sub, rg, "example.com"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "azure.json")
	writeFile(t, conf, `{"cloud": "AzureStackCloud", "tenantId": "t", "subscriptionId": "`+sub+`", "resourceGroup": "`+rg+`",
		"aadClientId": "c", "aadClientSecret": "s", "activeDirectoryAuthorityHost": "`+ts.URL+`/", "resourceManagerEndpoint": "`+ts.URL+`/",
		"resourceManagerAudience": "https://management.core.windows.net/"}`)
	caFile := filepath.Join(dir, "ca.pem")
	writeFile(t, caFile, string(ca.CertPEM))
	return (&azure.AzureFlags{}).Kinds()[0], []string{"--azure-config-file=" + conf}, provider.Env{TLS: provider.TLSFiles{CAFile: caFile}}
}

func startCoreDNS(t *testing.T) (provider.Kind, []string, provider.Env) {
	etcd := testbed.StartEtcd(t)
	t.Setenv("ETCD_URLS", etcd.Endpoint) // coredns reads its connection from the environment, as external-dns
	return (&coredns.CoreDNSFlags{}).Kind(), []string{"--coredns-prefix=/skydns-foreign/"}, provider.Env{}
}

func startRFC2136(t *testing.T) (provider.Kind, []string, provider.Env) {
	key := testbed.NewTSIGKey(t, "zonekeeper-key", "hmac-sha256")
	b := testbed.StartBIND(t, testbed.BINDConfig{Keys: []testbed.TSIGKey{key},
		Zones: []testbed.BINDZone{{Name: "example.com", UpdateKey: key.Name, TransferKey: key.Name}}})
	host, port, err := net.SplitHostPort(b.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return (&rfc2136.RFC2136Flags{}).Kind(), []string{"--rfc2136-host=" + host, "--rfc2136-port=" + port, "--rfc2136-zone=example.com",
		"--rfc2136-tsig-keyname=" + key.Name, "--rfc2136-tsig-secret=" + key.Secret, "--rfc2136-tsig-secret-alg=" + key.Algorithm}, provider.Env{}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
