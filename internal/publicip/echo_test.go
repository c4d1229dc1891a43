package publicip

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestEchoSourceAccepts(t *testing.T) {
	for _, body := range []string{"203.0.113.7", "  203.0.113.7\n", "\t2001:db8::7\r\n"} {
		srv := startEchoServer(t, body)
		s, err := NewEchoSource(srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := lookupOK(t, s)
		if len(got) != 1 || got[0].String() != strings.TrimSpace(body) {
			t.Fatalf("body %q: got %v", body, got)
		}
	}
}

func TestEchoSourceRejectsBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"html", 200, "<html><body>Your IP is 203.0.113.7</body></html>", `answered "<html><body>Your IP is 203.0.113.7</body></html>", which is not an IP address`},
		{"two addresses", 200, "203.0.113.7 203.0.113.8", `answered "203.0.113.7 203.0.113.8", which is not an IP address`},
		{"json", 200, `{"ip":"203.0.113.7"}`, "which is not an IP address"},
		{"empty", 200, "", `answered "", which is not an IP address`},
		{"zone", 200, "fe80::1%eth0", "which is not an IP address"},
		{"long garbage is cut", 200, strings.Repeat("x", 200), `answered "` + strings.Repeat("x", 64) + `"…`},
		{"too big", 200, strings.Repeat("1", 10000), "answered more than 256 bytes"},
		{"server error", 503, "203.0.113.7", "answered HTTP 503 Service Unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startEchoServer(t, tc.body)
			srv.Set(tc.status, tc.body)
			s, err := NewEchoSource(srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantLookupError(t, s, tc.want)
		})
	}
}

func TestEchoSourceServerDown(t *testing.T) {
	srv := startEchoServer(t, "203.0.113.7")
	s, err := NewEchoSource(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	lookupOK(t, s)
	s.Close()
	srv.Close()
	wantLookupError(t, s, "request failed")
}

func TestEchoSourceURLChecks(t *testing.T) {
	for _, bad := range []string{"ftp://example.net/ip", "example.net", "http://", "://x"} {
		if _, err := NewEchoSource(bad, nil); err == nil || !strings.Contains(err.Error(), "--public-ip-echo-url") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
	// The source's name (in logs and metrics) never shows a password or a query that may hold a token.
	s, err := NewEchoSource("https://user:s3cret@router.lan/wan?token=abc123", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Name(); strings.Contains(n, "s3cret") || strings.Contains(n, "abc123") || !strings.HasPrefix(n, "http https://user:xxxxx@router.lan/wan") {
		t.Fatalf("name %q", n)
	}
}

// A server that never stops talking costs a bounded read, not memory.
func TestEchoSourceEndlessBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("1", 4096))
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	s, err := NewEchoSource(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	wantLookupError(t, s, "answered more than 256 bytes")
}
