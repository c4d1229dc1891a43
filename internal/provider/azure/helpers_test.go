package azure

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
)

const (
	testSub = "00000000-0000-0000-0000-000000000001"
	testRG  = "rg-dns"
)

// emulator starts the Azure DNS emulator over TLS with a registered application and returns it, a
// transport that trusts its test CA and dials it for every host (MSAL sends instance discovery to
// login.microsoftonline.com, which a CONNECT proxy would route the same way), and an azure.json in
// the AzureStackCloud form pointing at it.
func emulator(t testing.TB, opts azurednsemu.Options) (*azurednsemu.Server, *http.Client, string) {
	t.Helper()
	ca, err := azurednsemu.NewTestCA(azurednsemu.DefaultTLSHosts...)
	if err != nil {
		t.Fatal(err)
	}
	opts.Credentials = append(opts.Credentials, azurednsemu.Credential{TenantID: "t", ClientID: "c", ClientSecret: "s"})
	emu := azurednsemu.New(opts)
	ts := httptest.NewUnstartedServer(emu)
	ts.TLS = ca.ServerTLS()
	ts.StartTLS()
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: ca.Pool},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	b, err := json.Marshal(map[string]string{"cloud": "AzureStackCloud", "tenantId": "t", "subscriptionId": testSub,
		"resourceGroup": testRG, "aadClientId": "c", "aadClientSecret": "s",
		"activeDirectoryAuthorityHost": ts.URL + "/", "resourceManagerEndpoint": ts.URL + "/",
		"resourceManagerAudience": "https://management.core.windows.net/"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "azure.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return emu, client, path
}

func newTestProvider(t *testing.T, client *http.Client, path string, cfg Config) *Provider {
	return newTestProviderB(t, client, path, cfg)
}

func newTestProviderB(t testing.TB, client *http.Client, path string, cfg Config) *Provider {
	t.Helper()
	f, err := LoadConfig(path, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.File, cfg.Transport = f, client
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
