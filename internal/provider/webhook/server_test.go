package webhook

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

func serve(t *testing.T, filter plan.DomainFilter) *httptest.Server {
	t.Helper()
	p := inmemory.New("example.com")
	srv := httptest.NewServer(Handler(p, filter, nil))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, method, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", MediaType)
	req.Header.Set("Content-Type", MediaType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The negotiation answers external-dns's DomainFilter JSON with exactly the media type.
func TestServerNegotiation(t *testing.T) {
	lists, _ := plan.NewDomainFilter([]string{"example.com", "example.org"}, []string{"internal.example.com"}, "", "")
	regex, _ := plan.NewDomainFilter([]string{"ignored.com"}, nil, `\.example\.com$`, `^private\.`)
	for _, c := range []struct {
		filter plan.DomainFilter
		want   string
	}{
		{plan.DomainFilter{}, `{}`},
		{lists, `{"include":["example.com","example.org"],"exclude":["internal.example.com"]}`},
		{regex, `{"regexInclude":"\\.example\\.com$","regexExclude":"^private\\."}`},
	} {
		resp, body := do(t, http.MethodGet, serve(t, c.filter).URL+"/", "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != MediaType {
			t.Errorf("negotiation: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if strings.TrimSpace(body) != c.want {
			t.Errorf("negotiation body %s, want %s", body, c.want)
		}
	}
}

// Refused changes come back named, with 500 (external-dns's client retries on it) and the others
// applied.
func TestServerNamesRefusedChanges(t *testing.T) {
	srv := serve(t, plan.DomainFilter{})
	resp, body := do(t, http.MethodPost, srv.URL+"/records",
		`{"create":[{"dnsName":"WWW.example.com.","targets":["192.0.2.1"],"recordType":"A"},{"dnsName":"www.example.org","targets":["192.0.2.2"],"recordType":"A"}]}`)
	if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("Content-Type") != rejectionsType {
		t.Fatalf("answer %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var r rejectionsJSON
	if err := json.Unmarshal([]byte(body), &r); err != nil || len(r.Rejected) != 1 || r.Rejected[0].Endpoint.DNSName != "www.example.org" || r.Rejected[0].Action != "CREATE" || r.Rejected[0].Error == "" {
		t.Fatalf("rejections %s (%v)", body, err)
	}
	resp, body = do(t, http.MethodGet, srv.URL+"/records", "")
	var eps []*endpoint.Endpoint
	if err := json.Unmarshal([]byte(body), &eps); err != nil || resp.StatusCode != http.StatusOK || len(eps) != 1 || eps[0].DNSName != "www.example.com" {
		t.Fatalf("records after the partial apply: %d %s", resp.StatusCode, body)
	}
}

func TestServerBadRequests(t *testing.T) {
	srv := serve(t, plan.DomainFilter{})
	for name, c := range map[string]struct {
		method, path, body string
		status             int
		says               string
	}{
		"not JSON":          {http.MethodPost, "/records", `{"create":`, http.StatusBadRequest, "not the expected JSON"},
		"unpaired update":   {http.MethodPost, "/records", `{"updateOld":[{"dnsName":"a.example.com","recordType":"A"}]}`, http.StatusBadRequest, "pair up"},
		"record no type":    {http.MethodPost, "/records", `{"delete":[{"dnsName":"a.example.com"}]}`, http.StatusBadRequest, "delete[0]"},
		"null endpoint":     {http.MethodPost, "/adjustendpoints", `[null]`, http.StatusBadRequest, "endpoint 0"},
		"wrong method":      {http.MethodPut, "/records", `{}`, http.StatusMethodNotAllowed, ""},
		"unknown path":      {http.MethodGet, "/zones", ``, http.StatusNotFound, ""},
		"too large":         {http.MethodPost, "/records", `{"create":[{"dnsName":"` + strings.Repeat("a", MaxBodySize) + `"}]}`, http.StatusRequestEntityTooLarge, "larger than"},
		"empty change list": {http.MethodPost, "/records", `{}`, http.StatusNoContent, ""},
	} {
		t.Run(name, func(t *testing.T) {
			resp, body := do(t, c.method, srv.URL+c.path, c.body)
			if resp.StatusCode != c.status || !strings.Contains(body, c.says) {
				t.Errorf("%d %q, want %d saying %q", resp.StatusCode, body, c.status, c.says)
			}
		})
	}
}

// --webhook-provider-max-body-size: a body past the limit gets 413, one under it is applied, and 0
// lifts the limit (external-dns v0.23).
func TestServerBodyLimit(t *testing.T) {
	body := `{"create":[{"dnsName":"big.example.com","recordType":"TXT","targets":["` + strings.Repeat("a", 2000) + `"]}]}`
	for _, c := range []struct {
		limit  int64
		status int
	}{{1024, http.StatusRequestEntityTooLarge}, {4096, http.StatusNoContent}, {0, http.StatusNoContent}} {
		srv := httptest.NewServer(HandlerWithBodyLimit(inmemory.New("example.com"), plan.DomainFilter{}, nil, c.limit))
		resp, text := do(t, http.MethodPost, srv.URL+"/records", body)
		if resp.StatusCode != c.status {
			t.Errorf("limit %d: %d %q, want %d", c.limit, resp.StatusCode, text, c.status)
		}
		srv.Close()
	}
}

// A provider without AdjustEndpoints echoes the endpoints; /healthz answers.
func TestServerAdjustAndHealth(t *testing.T) {
	srv := serve(t, plan.DomainFilter{})
	resp, body := do(t, http.MethodPost, srv.URL+"/adjustendpoints", `[{"dnsName":"www.example.com","targets":["192.0.2.1"],"recordType":"A","recordTTL":60}]`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"recordTTL":60`) {
		t.Errorf("adjust: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, http.MethodGet, srv.URL+"/healthz", ""); resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
}

// cachingProvider counts Invalidate calls, as Route 53's write-through cache would see them.
type cachingProvider struct {
	*inmemory.Provider
	invalidated int
}

func (c *cachingProvider) Invalidate() { c.invalidated++ }

// Behind the webhook no controller resyncs the provider's cache: every GET /records reads the backend.
func TestServerListsFreshRecords(t *testing.T) {
	p := &cachingProvider{Provider: inmemory.New("example.com")}
	srv := httptest.NewServer(Handler(p, plan.DomainFilter{}, nil))
	defer srv.Close()
	for i := 1; i <= 2; i++ {
		if resp, _ := do(t, http.MethodGet, srv.URL+"/records", ""); resp.StatusCode != http.StatusOK || p.invalidated != i {
			t.Fatalf("listing %d: status %d, cache dropped %d times", i, resp.StatusCode, p.invalidated)
		}
	}
}
