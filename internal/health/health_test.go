package health

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/controller"
)

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestReadinessFollowsReconciles(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	h := New(2 * time.Minute)
	h.now = func() time.Time { return now }
	mux := http.NewServeMux()
	h.Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	expect := func(code int, reason string) {
		t.Helper()
		c, body := get(t, srv, "/readyz")
		if c != code || !strings.Contains(body, reason) {
			t.Fatalf("readyz = %d %q, want %d containing %q", c, body, code, reason)
		}
	}
	if c, _ := get(t, srv, "/healthz"); c != http.StatusOK {
		t.Fatalf("healthz %d", c)
	}
	expect(503, "not synced")
	h.SourcesSynced()
	expect(503, "no reconcile has finished yet")
	h.Reconciled(controller.Report{Finished: now})
	expect(200, "ok")
	h.Reconciled(controller.Report{Finished: now.Add(time.Second), Stage: "provider", Err: errors.New("etcd: context deadline exceeded")})
	expect(503, "provider: etcd: context deadline exceeded")
	h.Reconciled(controller.Report{Finished: now.Add(2 * time.Second)})
	expect(200, "ok")
	now = now.Add(10 * time.Minute)
	expect(503, "ago")
	h.SetLeader(false)
	expect(200, "follower")
}
