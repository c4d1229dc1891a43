package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// limitedServer is zonekeeper's own webhook server (Handler over the in-memory provider) behind a
// rate limit, as a webhook in front of a throttled DNS API answers: above the limit, 429 with
// Retry-After: 1. It logs every request.
type limitedServer struct {
	next http.Handler
	mu   sync.Mutex
	lim  *rate.Limiter // nil: no limit
	log  []served
}

type served struct {
	at     time.Time
	call   string
	status int
}

func (s *limitedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	limited := s.lim != nil && !s.lim.Allow()
	s.mu.Unlock()
	status := http.StatusOK
	if limited {
		status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", "1")
		http.Error(w, "rate limited", status)
	} else {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		s.next.ServeHTTP(rec, r)
		status = rec.status
	}
	s.mu.Lock()
	s.log = append(s.log, served{at: time.Now(), call: r.Method + " " + r.URL.Path, status: status})
	s.mu.Unlock()
}

func (s *limitedServer) limit(l *rate.Limiter) {
	s.mu.Lock()
	s.lim = l
	s.mu.Unlock()
}

func (s *limitedServer) served() []served {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]served(nil), s.log...)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

// apiCounts counts what the client reports to the API budget metrics.
type apiCounts struct {
	mu        sync.Mutex
	calls     map[string]int
	throttles map[string]int
	rates     []float64
}

func (m *apiCounts) APICall(p, zone, call string, throttled bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls == nil {
		m.calls, m.throttles = map[string]int{}, map[string]int{}
	}
	m.calls[p+" "+zone+" "+call]++
	if throttled {
		m.throttles[p+" "+zone+" "+call]++
	}
}

func (m *apiCounts) APIRate(_, _ string, r float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rates = append(m.rates, r)
}

func (m *apiCounts) get(call string) (calls, throttles int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls["webhook  "+call], m.throttles["webhook  "+call]
}

func named(n int) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for i := range n {
		out = append(out, endpoint.NewWithTTL(fmt.Sprintf("h%d.example.com", i), endpoint.RecordTypeA, 300, fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)).
			WithLabel(endpoint.ResourceLabelKey, fmt.Sprintf("service/default/h%d", i)))
	}
	return out
}

// A webhook that answers 429 with Retry-After (a limit of 2 requests per second, burst 1, for the
// whole sync) is paced: no request follows a 429 before its Retry-After, every 429 is counted in the
// API budget metrics, the controller converges with every record once, and afterwards the client is
// unpaced again. Without the throttle (before issue 16) the first 429 failed the sync, and every retry
// of the controller met another one.
func TestThrottledWebhookIsPacedAndConverges(t *testing.T) {
	backend := inmemory.New("example.com")
	srv := &limitedServer{next: Handler(backend, plan.DomainFilter{}, nil)}
	srv.limit(rate.NewLimiter(2, 1))
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	m := &apiCounts{}
	p, err := New(Config{URL: hs.URL, APIMetrics: m, NegotiateBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := named(50)
	start := time.Now()
	providertest.RunController(t, p, controller.Settings{Interval: 200 * time.Millisecond, ProviderCacheTime: time.Hour}, want...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		eps, err := backend.Records(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(eps) == 2*len(want) {
			seen := map[string]int{}
			for _, e := range eps {
				seen[e.RecordType+" "+e.DNSName]++
			}
			for k, n := range seen {
				if n != 1 {
					t.Errorf("%s published %d times", k, n)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d records after 30 s", len(eps), 2*len(want))
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	log := srv.served()
	throttled := 0
	for i, s := range log {
		if s.status != http.StatusTooManyRequests {
			continue
		}
		throttled++
		if i+1 < len(log) && log[i+1].at.Sub(s.at) < 900*time.Millisecond {
			t.Errorf("request %d (%s) came %s after a 429 asking for 1 s", i+1, log[i+1].call, log[i+1].at.Sub(s.at))
		}
	}
	counted := 0
	for _, c := range []string{"negotiate", "records.list", "records.apply", "adjustendpoints"} {
		_, n := m.get(c)
		counted += n
	}
	t.Logf("converged in %s: %d requests, %d answered 429, %d counted", took.Round(10*time.Millisecond), len(log), throttled, counted)
	if throttled == 0 || counted != throttled {
		t.Errorf("%d 429s answered, %d counted in the metrics", throttled, counted)
	}
	if p.budget.Throttles() != throttled {
		t.Errorf("the throttle saw %d 429s, the server answered %d", p.budget.Throttles(), throttled)
	}

	srv.limit(nil)
	n := 0
	for ; n < 60 && p.budget.paced() != nil; n++ {
		if _, err := p.Records(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("unpaced again after %d answered requests", n)
	if p.budget.paced() != nil {
		t.Error("the client is still paced after 60 answered requests")
	}
}

// Without a zone probe in the protocol, the webhook is listed again at every --interval, or at most
// every --provider-cache-time when that is set: at a 100 ms interval and a 1 s cache time, 2.5 s of
// idling cost about 3 GET /records, not 25.
func TestProviderCacheTimeSpacesTheListings(t *testing.T) {
	backend := inmemory.New("example.com")
	srv := &limitedServer{next: Handler(backend, plan.DomainFilter{}, nil)}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	m := &apiCounts{}
	p, err := New(Config{URL: hs.URL, APIMetrics: m})
	if err != nil {
		t.Fatal(err)
	}
	providertest.RunController(t, p, controller.Settings{Interval: 100 * time.Millisecond, ProviderCacheTime: time.Second}, named(3)...)
	time.Sleep(2500 * time.Millisecond)
	lists, negotiations := 0, 0
	for _, s := range srv.served() {
		switch s.call {
		case "GET /records":
			lists++
		case "GET /":
			negotiations++
		}
	}
	counted, _ := m.get("records.list")
	t.Logf("in 2.5 s: %d GET /records (metrics: %d), %d GET /", lists, counted, negotiations)
	if lists < 2 || lists > 4 {
		t.Errorf("%d listings in 2.5 s at --provider-cache-time=1s, want about 3", lists)
	}
	if counted != lists {
		t.Errorf("the metrics counted %d records.list, the server served %d", counted, lists)
	}
}

// A server that answers 429 to everything (no Retry-After) is sent the request again after a backoff
// doubling from 1 s, until the wait allowed to one request is spent (2 minutes; 2.5 s here); then the
// call fails as an outage, not as rejected changes, and the controller retries the run later.
func TestPersistent429FailsTheCallAfterTheWait(t *testing.T) {
	f := &fakeWebhook{status: http.StatusTooManyRequests}
	p := start(t, f)
	p.budget.maxWait = 2500 * time.Millisecond
	began := time.Now()
	err := p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.New("a.example.com", "A", "192.0.2.1"), endpoint.New("b.example.com", "A", "192.0.2.2")}})
	if err == nil {
		t.Fatal("no error")
	}
	if _, ok := provider.AsApplyError(err); ok {
		t.Errorf("reported as rejected changes: %v", err)
	}
	// The first pause (1 s) fits in 2.5 s, the second (2 s more) does not: two POSTs, one pause.
	if f.posts != 2 || time.Since(began) < time.Second {
		t.Errorf("%d POSTs in %s, want 2 with a 1 s pause between", f.posts, time.Since(began))
	}
}

// The metrics name each call of the protocol, also under a base path.
func TestCallNames(t *testing.T) {
	for _, base := range []string{"http://127.0.0.1:1", "http://127.0.0.1:1/hook/"} {
		p, err := New(Config{URL: base})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ method, path, want string }{
			{http.MethodGet, "", "negotiate"},
			{http.MethodGet, "records", "records.list"},
			{http.MethodPost, "records", "records.apply"},
			{http.MethodPost, "adjustendpoints", "adjustendpoints"},
		} {
			req, _ := http.NewRequest(c.method, p.base.JoinPath(c.path).String(), nil)
			if got := p.callOf(req); got != c.want {
				t.Errorf("%s %s under %s: %q, want %q", c.method, c.path, base, got, c.want)
			}
		}
	}
}
