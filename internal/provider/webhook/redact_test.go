package webhook

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// The credentials of --webhook-provider-url (user:password@) authenticate the requests but appear in
// no log line and no error: not on negotiation, not when the server fails, not when it is unreachable,
// not when the URL itself is refused.
func TestURLCredentialsNeverShown(t *testing.T) {
	const user, password = "zk-hook-user", "zk-hook-Pa55word"
	var authorized, unauthorized int
	f := &fakeWebhook{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, pw, ok := r.BasicAuth(); !ok || u != user || pw != password {
			unauthorized++
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		authorized++
		if r.URL.Path == "/adjustendpoints" {
			http.Error(w, "broken", http.StatusInternalServerError)
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	withCredentials := func(base string) string {
		return strings.Replace(base, "http://", "http://"+user+":"+password+"@", 1)
	}
	var logs bytes.Buffer
	var shown []string
	p, err := New(Config{URL: withCredentials(srv.URL), NegotiateBackoff: time.Millisecond, NegotiateAttempts: 1,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.DomainFilter(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AdjustEndpoints(ctx, []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.1")}); err == nil {
		t.Error("a 500 from /adjustendpoints was ignored")
	} else {
		shown = append(shown, err.Error())
	}
	if authorized == 0 || unauthorized != 0 {
		t.Errorf("%d requests authorized, %d not: the credentials were not sent", authorized, unauthorized)
	}
	srv.Close()
	down, _ := New(Config{URL: withCredentials(srv.URL), NegotiateBackoff: time.Millisecond, NegotiateAttempts: 1})
	for _, call := range []func() error{
		func() error { _, err := down.DomainFilter(ctx); return err },
		func() error { _, err := down.Records(ctx); return err },
		func() error {
			return down.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("a.example.com", "A", "192.0.2.1")}})
		},
	} {
		if err := call(); err == nil {
			t.Error("an unreachable server did not fail the call")
		} else {
			shown = append(shown, err.Error())
		}
	}
	for _, bad := range []string{"ftp://" + user + ":" + password + "@host", "http://" + user + ":" + password + "@host:port/x", "http://" + user + ":" + password + "@"} {
		if _, err := New(Config{URL: bad}); err == nil {
			t.Errorf("%s accepted", bad)
		} else {
			shown = append(shown, err.Error())
		}
	}
	shown = append(shown, logs.String())
	if !strings.Contains(logs.String(), "Negotiated") {
		t.Errorf("no negotiation line logged: %s", logs.String())
	}
	for _, s := range shown {
		if strings.Contains(s, password) || strings.Contains(s, user) {
			t.Errorf("credentials shown: %s", s)
		}
	}
}
