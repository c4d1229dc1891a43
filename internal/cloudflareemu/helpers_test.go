package cloudflareemu

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/option"
)

// testEnv is an emulator behind an httptest server plus a real v7 client.
type testEnv struct {
	srv    *Server
	http   *httptest.Server
	client *cloudflare.Client
	zoneID string
}

// newEnv starts an emulator with zone example.com (Free plan). The client
// does not retry, so every emulator answer reaches the test.
func newEnv(t *testing.T, opts Options) *testEnv {
	t.Helper()
	srv := New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	id, err := srv.AddZone("example.com")
	if err != nil {
		t.Fatal(err)
	}
	client := cloudflare.NewClient(
		option.WithBaseURL(hs.URL+APIPrefix),
		option.WithAPIToken("test-token"),
		option.WithMaxRetries(0),
	)
	return &testEnv{srv: srv, http: hs, client: client, zoneID: id}
}

// do sends a raw API request with a bearer token and decodes the envelope.
func (e *testEnv) do(t *testing.T, method, path string, body any) (int, envelopeIn) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env envelopeIn
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s %s: body is not an envelope: %v: %s", method, path, err, raw)
	}
	env.raw = raw
	return resp.StatusCode, env
}

// envelopeIn is the envelope as a client reads it.
type envelopeIn struct {
	Success    bool            `json:"success"`
	Errors     []errorDetail   `json:"errors"`
	Messages   []errorDetail   `json:"messages"`
	Result     json.RawMessage `json:"result"`
	ResultInfo *resultInfo     `json:"result_info"`
	raw        []byte
}

func (e envelopeIn) code() int {
	if len(e.Errors) == 0 {
		return 0
	}
	return e.Errors[0].Code
}

// sdkErrorCode returns the first Cloudflare error code of an SDK error.
func sdkErrorCode(t *testing.T, err error) (int, int) {
	t.Helper()
	var apiErr *cloudflare.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want a *cloudflare.Error, got %T: %v", err, err)
	}
	if len(apiErr.Errors) == 0 {
		t.Fatalf("error without errors[]: %v", err)
	}
	return apiErr.StatusCode, int(apiErr.Errors[0].Code)
}
