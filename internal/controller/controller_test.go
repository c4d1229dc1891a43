package controller

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// listSource is a source over a list the test changes; it fires its handlers on every change.
type listSource struct {
	mu       sync.Mutex
	eps      []*endpoint.Endpoint
	problems []endpoint.Problem
	err      error
	handlers []func()
}

func (s *listSource) Endpoints(context.Context) (source.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*endpoint.Endpoint, len(s.eps))
	for i, e := range s.eps {
		out[i] = e.DeepCopy()
	}
	return source.Result{Endpoints: out, Problems: s.problems}, s.err
}

func (s *listSource) AddEventHandler(h func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers = append(s.handlers, h)
}

func (s *listSource) set(err error, eps ...*endpoint.Endpoint) {
	s.mu.Lock()
	s.eps, s.err = eps, err
	hs := append([]func(){}, s.handlers...)
	s.mu.Unlock()
	for _, h := range hs {
		h()
	}
}

func a(name, ip, resource string) *endpoint.Endpoint {
	return endpoint.New(name, endpoint.RecordTypeA, ip).WithLabel(endpoint.ResourceLabelKey, resource)
}

func newTestController(t *testing.T, src source.Source, settings Settings) (*Controller, *inmemory.Provider, *testbed.LogBuffer) {
	t.Helper()
	p := inmemory.New("example.com")
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	settings.OwnerID = "test"
	if settings.Policy == "" {
		settings.Policy = plan.PolicySync
	}
	logs := &testbed.LogBuffer{}
	return New(src, reg, settings, slog.New(slog.NewTextHandler(logs, nil))), p, logs
}

func records(t *testing.T, p *inmemory.Provider) map[string]string {
	t.Helper()
	eps, err := p.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range eps {
		out[e.DNSName+" "+e.RecordType] = strings.Join(e.Targets, ",")
	}
	return out
}

func TestRunOnceCreatesThenIsIdempotent(t *testing.T) {
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	c, p, logs := newTestController(t, src, Settings{})
	out, err := c.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Changes.Create) != 1 {
		t.Fatalf("creates %v", out.Changes.Create)
	}
	got := records(t, p)
	if got["web.example.com A"] != "192.0.2.1" || !strings.Contains(got["a-web.example.com TXT"], "owner=test") {
		t.Fatalf("records %v", got)
	}
	if !strings.Contains(logs.String(), "Desired change: CREATE web.example.com A") {
		t.Fatalf("log lacks the external-dns wording:\n%s", logs)
	}
	out, err = c.RunOnce(context.Background())
	if err != nil || out.Changes.HasChanges() {
		t.Fatalf("second run: %v %v", out.Changes, err)
	}
	if !strings.Contains(logs.String(), "All records are already up to date") {
		t.Fatal("no up-to-date line")
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	c, p, _ := newTestController(t, src, Settings{DryRun: true})
	out, err := c.RunOnce(context.Background())
	if err != nil || len(out.Changes.Create) != 1 {
		t.Fatalf("dry run: %v %v", out.Changes, err)
	}
	if got := records(t, p); len(got) != 0 {
		t.Fatalf("dry run wrote %v", got)
	}
}

// A change the provider rejects is reported with its object, does not block the others, and is
// retried with backoff rather than on every run.
func TestRejectedChangeIsIsolatedAndBackedOff(t *testing.T) {
	src := &listSource{}
	src.set(nil,
		a("web.example.com", "192.0.2.1", "service/default/web"),
		a("outside.example.org", "192.0.2.2", "ingress/default/stray"))
	c, p, logs := newTestController(t, src, Settings{})
	now := time.Now()
	c.now = func() time.Time { return now }

	out, err := c.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Rejected == 0 {
		t.Fatal("the out-of-zone record was not rejected")
	}
	if got := records(t, p); got["web.example.com A"] != "192.0.2.1" {
		t.Fatalf("the good record was blocked: %v", got)
	}
	if !strings.Contains(logs.String(), "ingress/default/stray") {
		t.Fatalf("rejection does not name the object:\n%s", logs)
	}
	out, _ = c.RunOnce(context.Background())
	if out.Changes.HasChanges() {
		t.Fatalf("retried before its backoff: %v", out.Changes.Create)
	}
	now = now.Add(2 * time.Second)
	out, _ = c.RunOnce(context.Background())
	if len(out.Changes.Create) != 1 || out.Changes.Create[0].DNSName != "outside.example.org" {
		t.Fatalf("not retried after the backoff: %v", out.Changes.Create)
	}
}

func TestProblemsAreLoggedOnceWhileTheyPersist(t *testing.T) {
	src := &listSource{problems: []endpoint.Problem{{
		Object: endpoint.ObjectRef{Kind: "Ingress", Namespace: "default", Name: "bad"},
		Field:  "metadata.annotations[external-dns.alpha.kubernetes.io/ttl]", Value: "abc", Reason: "not a number",
	}}}
	c, _, logs := newTestController(t, src, Settings{})
	for i := 0; i < 3; i++ {
		if _, err := c.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "Invalid input ignored"); n != 1 {
		t.Fatalf("problem logged %d times, want 1:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), "Ingress default/bad") || !strings.Contains(logs.String(), "external-dns.alpha.kubernetes.io/ttl") {
		t.Fatalf("warning does not name object and field:\n%s", logs)
	}
}

// Run reacts to events within the debounce, survives source errors, and stops with its context.
func TestRunIsEventDrivenAndSurvivesErrors(t *testing.T) {
	src := &listSource{}
	c, p, logs := newTestController(t, src, Settings{Interval: time.Hour, Debounce: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if ok() {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("%s did not happen\n%s", what, logs)
	}
	time.Sleep(50 * time.Millisecond)
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	waitFor("create after event", func() bool { return records(t, p)["web.example.com A"] == "192.0.2.1" })

	src.set(errors.New("informer exploded"))
	waitFor("error logged", func() bool { return strings.Contains(logs.String(), "informer exploded") })

	src.set(nil, a("web.example.com", "192.0.2.9", "service/default/web"))
	waitFor("update after recovery", func() bool { return records(t, p)["web.example.com A"] == "192.0.2.9" })

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
}
