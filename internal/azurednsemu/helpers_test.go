package azurednsemu

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

const (
	testSub    = "00000000-0000-0000-0000-000000000001"
	testRG     = "rg-dns"
	testTenant = "emu-tenant"
	testClient = "emu-client"
	testSecret = "emu-secret"
)

// exchange is one request/response pair seen by the SDK's transport.
type exchange struct {
	method, host, path string
	status             int
	body               []byte
}

// recorder is the SDK's transport: it dials the emulator for every host
// (so login.microsoftonline.com, where MSAL sends instance discovery, is
// the emulator too), trusts only the test CA, and keeps every response
// body so tests can check the raw JSON the SDK decoded.
type recorder struct {
	client *http.Client
	mu     sync.Mutex
	seen   []exchange
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	r.mu.Lock()
	r.seen = append(r.seen, exchange{req.Method, req.URL.Host, req.URL.Path, resp.StatusCode, b})
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.seen...)
}

// fixture is a running TLS emulator and SDK options pointing at it.
type fixture struct {
	srv   *Server
	url   string
	ca    *TestCA
	rec   *recorder
	cloud cloud.Configuration
	cred  azcore.TokenCredential
}

func startTLS(t testing.TB, opts Options) *fixture {
	t.Helper()
	ca, err := NewTestCA(DefaultTLSHosts...)
	if err != nil {
		t.Fatal(err)
	}
	opts.Credentials = append(opts.Credentials, Credential{TenantID: testTenant, ClientID: testClient, ClientSecret: testSecret})
	srv := New(opts)
	ts := httptest.NewUnstartedServer(srv)
	ts.TLS = ca.ServerTLS()
	ts.StartTLS()
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()
	tr := &http.Transport{
		TLSClientConfig: ca.ServerTLS().Clone(),
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
	tr.TLSClientConfig.Certificates, tr.TLSClientConfig.RootCAs = nil, ca.Pool
	rec := &recorder{client: &http.Client{Transport: tr}}
	f := &fixture{srv: srv, url: ts.URL, ca: ca, rec: rec}
	f.cloud = cloud.Configuration{
		ActiveDirectoryAuthorityHost: ts.URL + "/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Audience: "https://management.core.windows.net/", Endpoint: ts.URL},
		},
	}
	f.cred, err = azidentity.NewClientSecretCredential(testTenant, testClient, testSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: azcore.ClientOptions{Cloud: f.cloud, Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// armOptions are the ARM client options external-dns builds (its azure.json
// AzureStackCloud form), with the recorder as transport.
func (f *fixture) armOptions(maxRetries int32) *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: azcore.ClientOptions{
		Cloud: f.cloud, Transport: f.rec,
		// A short back-off for 5xx; MaxRetryDelay stays at azcore's
		// default (60 s), which a Retry-After must not exceed.
		Retry: policy.RetryOptions{MaxRetries: maxRetries, RetryDelay: time.Millisecond},
	}}
}

func mustSeed(t testing.TB, s *Server, seed Seed) {
	t.Helper()
	if err := s.Seed(seed); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }
