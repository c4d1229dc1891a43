package googlednsemu

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2/google"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

const testProject = "emu-project"

// exchange is one request/response pair seen by the SDK's transport.
type exchange struct {
	method, path string
	status       int
	body         []byte
}

// recorder is an http.RoundTripper that keeps every response body, so
// tests can check the raw JSON the SDK decoded.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
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
	r.seen = append(r.seen, exchange{req.Method, req.URL.Path, resp.StatusCode, b})
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]exchange(nil), r.seen...)
}

// env is an emulator behind an httptest server and a dns/v1 client that
// gets its token from the emulator's /token with a service-account key.
type env struct {
	emu *Server
	srv *httptest.Server
	svc *dns.Service
	rec *recorder
}

// serviceAccountJSON writes a throwaway service-account key whose token_uri
// is the emulator.
func serviceAccountJSON(t *testing.T, tokenURI string) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]string{
		"type": "service_account", "project_id": testProject, "private_key_id": "0123456789abcdef",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "zonekeeper@" + testProject + ".iam.gserviceaccount.com", "client_id": "1234567890",
		"token_uri": tokenURI,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newEnv(t *testing.T, opts Options, scopes ...string) *env {
	t.Helper()
	emu := New(opts)
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	if len(scopes) == 0 {
		scopes = []string{dns.NdevClouddnsReadwriteScope}
	}
	conf, err := google.JWTConfigFromJSON(serviceAccountJSON(t, srv.URL+TokenPath), scopes...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hc := conf.Client(ctx)
	rec := &recorder{next: hc.Transport}
	hc.Transport = rec
	svc, err := dns.NewService(ctx, option.WithEndpoint(srv.URL+"/"), option.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return &env{emu: emu, srv: srv, svc: svc, rec: rec}
}

// seedStandard creates the project with a public zone, a private zone on
// two networks and a peering zone.
func (e *env) seedStandard(t *testing.T) []SeededZone {
	t.Helper()
	z, err := e.emu.Seed(Seed{Projects: []SeedProject{{ID: testProject, Zones: []SeedZone{
		{Name: "public-zone", DNSName: "example.com.", Description: "public", Labels: map[string]string{"team": "dns"},
			RRSets: []SeedRRSet{{Name: "www", Type: "A", TTL: 300, Rrdatas: []string{"192.0.2.1", "192.0.2.2"}}}},
		{Name: "private-zone", DNSName: "internal.example.", Visibility: "private", Networks: []string{
			"https://www.googleapis.com/compute/v1/projects/emu-project/global/networks/default",
			"https://www.googleapis.com/compute/v1/projects/emu-project/global/networks/other"}},
		{Name: "peering-zone", DNSName: "peer.example.", Visibility: "private",
			Networks:             []string{"https://www.googleapis.com/compute/v1/projects/emu-project/global/networks/default"},
			PeeringTargetNetwork: "https://www.googleapis.com/compute/v1/projects/other-project/global/networks/shared"},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// apiErr asserts err is a googleapi.Error with the status and reason.
func apiErr(t *testing.T, err error, code int, reason string) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got %v, want a googleapi.Error %d %s", err, code, reason)
	}
	if ge.Code != code || len(ge.Errors) != 1 || ge.Errors[0].Reason != reason {
		t.Fatalf("got %d %+v (%s), want %d %s", ge.Code, ge.Errors, ge.Message, code, reason)
	}
	return ge
}

func rrs(name, typ string, ttl int64, data ...string) *dns.ResourceRecordSet {
	return &dns.ResourceRecordSet{Name: name, Type: typ, Ttl: ttl, Rrdatas: data}
}

// apiModuleDir is google.golang.org/api's directory in the module cache, at
// the version go.mod requires.
func apiModuleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "google.golang.org/api").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go list -m google.golang.org/api: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func discoveryPath(t *testing.T) string {
	return filepath.Join(apiModuleDir(t), "dns", "v1", "dns-api.json")
}
