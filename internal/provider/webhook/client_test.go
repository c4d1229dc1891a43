package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// fakeWebhook is a webhook server written the way third-party ones are: it answers a body it cannot
// apply with a bare 500 and applies nothing of it.
type fakeWebhook struct {
	mu         sync.Mutex
	refuse     string          // a body holding this name is refused whole
	refuse2    string          // and this one
	refuseSet  map[string]bool // and these
	adjusts    int
	status     int // answer every POST /records with this status when set
	applied    []string
	posts      int
	negotiates int
	// negotiateFailures answers the first negotiations with 503.
	negotiateFailures int
	contentType       string
	filter            string
	adjustStatus      int
}

func (f *fakeWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		f.negotiates++
		if f.negotiates <= f.negotiateFailures {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		ct := f.contentType
		if ct == "" {
			ct = MediaType
		}
		w.Header().Set("Content-Type", ct)
		body := f.filter
		if body == "" {
			body = `{"include":["example.com"]}`
		}
		fmt.Fprint(w, body)
	case r.Method == http.MethodPost && r.URL.Path == "/records":
		f.posts++
		if f.status != 0 {
			w.WriteHeader(f.status)
			return
		}
		var c plan.Changes
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var names []string
		for _, l := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
			for _, e := range l {
				if e.DNSName == f.refuse || (f.refuse2 != "" && e.DNSName == f.refuse2) || f.refuseSet[e.DNSName] {
					http.Error(w, "the DNS API says: "+e.DNSName+" is not allowed", http.StatusInternalServerError)
					return
				}
				names = append(names, e.DNSName+" "+e.RecordType)
			}
		}
		f.applied = append(f.applied, names...)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet && r.URL.Path == "/records":
		w.Header().Set("Content-Type", MediaType)
		fmt.Fprint(w, `[{"dnsName":"www.example.com","targets":["192.0.2.1"],"recordType":"A"},{"dnsName":"","recordType":"A"},null]`)
	case r.Method == http.MethodPost && r.URL.Path == "/adjustendpoints":
		f.adjusts++
		if f.adjustStatus != 0 {
			w.WriteHeader(f.adjustStatus)
			return
		}
		var eps []*endpoint.Endpoint
		_ = json.NewDecoder(r.Body).Decode(&eps)
		for _, e := range eps {
			e.RecordTTL = 60
		}
		w.Header().Set("Content-Type", MediaType)
		_ = json.NewEncoder(w).Encode(eps)
	default:
		http.NotFound(w, r)
	}
}

func start(t *testing.T, f *fakeWebhook) *Provider {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p, err := New(Config{URL: srv.URL, NegotiateBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func owned(record *endpoint.Endpoint) *endpoint.Endpoint {
	return endpoint.New("a-"+record.DNSName, endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=o"`).
		WithLabel(endpoint.OwnedRecordLabelKey, record.DNSName)
}

// A refused body is split until the refused record stands alone, with its ownership TXT; the others
// are applied once each, and the report carries the server's answer.
func TestRefusedChangeIsolatedBySplitting(t *testing.T) {
	f := &fakeWebhook{refuse: "bad.example.com"}
	p := start(t, f)
	var create []*endpoint.Endpoint
	var bad *endpoint.Endpoint
	for i := 0; i < 64; i++ {
		name := fmt.Sprintf("host%d.example.com", i)
		if i == 37 {
			name = "bad.example.com"
		}
		e := endpoint.New(name, endpoint.RecordTypeA, "192.0.2.1")
		if i == 37 {
			bad = e
		}
		create = append(create, e, owned(e))
	}
	err := p.ApplyChanges(context.Background(), &plan.Changes{Create: create})
	ae, ok := provider.AsApplyError(err)
	if !ok {
		t.Fatalf("ApplyChanges = %v, want an ApplyError", err)
	}
	var got []string
	for _, r := range ae.Rejected {
		got = append(got, r.Endpoint.DNSName+" "+r.Endpoint.RecordType)
		if !strings.Contains(r.Err.Error(), "bad.example.com is not allowed") {
			t.Errorf("the report lacks the server's answer: %v", r.Err)
		}
	}
	if want := "bad.example.com A,a-bad.example.com TXT"; strings.Join(got, ",") != want {
		t.Errorf("rejected %v, want %s", got, want)
	}
	if ae.Rejected[0].Endpoint != bad {
		t.Error("the rejection does not carry the endpoint that was asked for (with its labels)")
	}
	if len(f.applied) != 126 {
		t.Errorf("applied %d records, want the 126 others exactly once", len(f.applied))
	}
	seen := map[string]bool{}
	for _, a := range f.applied {
		if seen[a] {
			t.Errorf("%s applied twice", a)
		}
		seen[a] = true
	}
	// 64 groups: one refused body, then one halving per level down to the refused group.
	if f.posts > 2*7+1 {
		t.Errorf("%d POSTs to isolate one refused group of 64", f.posts)
	}
}

// An unavailable server is an outage, not a refusal: one request, a plain error, nothing reported as
// rejected. (A 429 is waited out and sent again first: TestPersistent429FailsTheCallAfterTheWait.)
func TestUnavailableServerFailsTheCall(t *testing.T) {
	for _, status := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout,
		http.StatusUnauthorized, http.StatusMethodNotAllowed} {
		f := &fakeWebhook{status: status}
		p := start(t, f)
		err := p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
			endpoint.New("a.example.com", "A", "192.0.2.1"), endpoint.New("b.example.com", "A", "192.0.2.2")}})
		if err == nil {
			t.Fatalf("%d: no error", status)
		}
		if _, ok := provider.AsApplyError(err); ok {
			t.Errorf("%d: reported as rejected changes: %v", status, err)
		}
		if f.posts != 1 {
			t.Errorf("%d: %d POSTs, want 1", status, f.posts)
		}
	}
	p, err := New(Config{URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	err = p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("a.example.com", "A", "192.0.2.1")}})
	if _, ok := provider.AsApplyError(err); err == nil || ok {
		t.Errorf("unreachable server: %v, want a plain error", err)
	}
}

func TestNegotiation(t *testing.T) {
	t.Run("retries a starting server", func(t *testing.T) {
		f := &fakeWebhook{negotiateFailures: 2, filter: `{"regexInclude":"^(www|api)\\.example\\.com$"}`}
		p := start(t, f)
		df, err := p.DomainFilter(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !df.Match("www.example.com") || df.Match("mail.example.com") {
			t.Errorf("negotiated filter %q does not behave", df.Regex())
		}
		if f.negotiates != 3 {
			t.Errorf("%d negotiations, want 3", f.negotiates)
		}
		if _, err := p.DomainFilter(context.Background()); err != nil || f.negotiates != 3 {
			t.Errorf("negotiated again: %d, %v", f.negotiates, err)
		}
	})
	t.Run("gives up after the attempts and tries again on the next call", func(t *testing.T) {
		f := &fakeWebhook{negotiateFailures: 7}
		p := start(t, f)
		if _, err := p.DomainFilter(context.Background()); err == nil || !strings.Contains(err.Error(), "503") {
			t.Fatalf("err = %v, want the 503", err)
		}
		if f.negotiates != 5 {
			t.Errorf("%d negotiations, want 5", f.negotiates)
		}
		if _, err := p.DomainFilter(context.Background()); err != nil {
			t.Errorf("second call: %v", err)
		}
	})
	for name, f := range map[string]*fakeWebhook{
		"wrong content type": {contentType: "application/json"},
		"both filter kinds":  {filter: `{"include":["example.com"],"regexInclude":"x"}`},
		"bad regex":          {filter: `{"regexInclude":"("}`},
		"not JSON":           {filter: `<html>`},
	} {
		t.Run(name, func(t *testing.T) {
			p := start(t, f)
			_, err := p.DomainFilter(context.Background())
			if err == nil {
				t.Fatal("accepted")
			}
			if f.negotiates != 1 {
				t.Errorf("%d negotiations: a wrong answer is not retried", f.negotiates)
			}
			t.Log(err)
		})
	}
}

func TestRecordsSkipsMalformedEntries(t *testing.T) {
	p := start(t, &fakeWebhook{})
	eps, err := p.Records(context.Background())
	if err != nil || len(eps) != 1 || eps[0].DNSName != "www.example.com" {
		t.Fatalf("Records = %v, %v", eps, err)
	}
}

func TestAdjustEndpoints(t *testing.T) {
	in := []*endpoint.Endpoint{endpoint.New("www.example.com", "A", "192.0.2.1")}
	p := start(t, &fakeWebhook{})
	out, err := p.AdjustEndpoints(context.Background(), in)
	if err != nil || len(out) != 1 || out[0].RecordTTL != 60 || in[0].RecordTTL != 0 {
		t.Fatalf("AdjustEndpoints = %v, %v (input %v)", out, err, in)
	}
	// A server without /adjustendpoints: the endpoints pass unchanged, and it is not asked again until
	// the next resync (it may have been upgraded).
	f := &fakeWebhook{adjustStatus: http.StatusNotFound}
	p = start(t, f)
	for i := 0; i < 2; i++ {
		out, err = p.AdjustEndpoints(context.Background(), in)
		if err != nil || len(out) != 1 || out[0] != in[0] {
			t.Fatalf("AdjustEndpoints = %v, %v, want the input", out, err)
		}
	}
	if f.adjusts != 1 {
		t.Errorf("asked %d times, want once", f.adjusts)
	}
	p.Invalidate()
	if _, err := p.AdjustEndpoints(context.Background(), in); err != nil || f.adjusts != 2 {
		t.Errorf("after a resync: asked %d times (%v), want again", f.adjusts, err)
	}
	// A failing one fails the run.
	p = start(t, &fakeWebhook{adjustStatus: http.StatusInternalServerError})
	if _, err := p.AdjustEndpoints(context.Background(), in); err == nil {
		t.Fatal("a 500 from /adjustendpoints was ignored")
	}
}

func TestNewChecksTheURL(t *testing.T) {
	for _, u := range []string{"localhost:8888", "ftp://x", "http://", "::"} {
		if _, err := New(Config{URL: u}); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	if _, err := New(Config{}); err != nil {
		t.Errorf("the default URL: %v", err)
	}
}

// A resync (Invalidate) negotiates again, so a server whose domains changed is followed.
func TestRenegotiatesAfterInvalidate(t *testing.T) {
	f := &fakeWebhook{}
	p := start(t, f)
	if df, err := p.DomainFilter(context.Background()); err != nil || !df.Match("www.example.com") {
		t.Fatalf("first negotiation: %v %v", df.Filters(), err)
	}
	f.mu.Lock()
	f.filter = `{"include":["example.org"]}`
	f.mu.Unlock()
	if df, _ := p.DomainFilter(context.Background()); !df.Match("www.example.com") {
		t.Fatal("negotiated again without a resync")
	}
	p.Invalidate()
	df, err := p.DomainFilter(context.Background())
	if err != nil || df.Match("www.example.com") || !df.Match("www.example.org") {
		t.Fatalf("after Invalidate: %v %v, want example.org", df.Filters(), err)
	}
}

// Two refused records among 64 groups are both isolated within the budget; the rest is applied.
func TestTwoRefusedChangesIsolated(t *testing.T) {
	f := &fakeWebhook{refuse: "host5.example.com", refuse2: "host50.example.com"}
	p := start(t, f)
	var create []*endpoint.Endpoint
	for i := 0; i < 64; i++ {
		e := endpoint.New(fmt.Sprintf("host%d.example.com", i), endpoint.RecordTypeA, "192.0.2.1")
		create = append(create, e, owned(e))
	}
	ae, ok := provider.AsApplyError(p.ApplyChanges(context.Background(), &plan.Changes{Create: create}))
	if !ok || len(ae.Rejected) != 4 {
		t.Fatalf("rejected %v, want the two records and their TXTs", ae)
	}
	if len(f.applied) != 124 {
		t.Errorf("applied %d, want 124", len(f.applied))
	}
}

// A server that refuses everything with a bare 500 (its DNS service is down) costs at most the split
// budget, not a request per record; every change is reported, none applied.
func TestRefusingEverythingCostsTheBudget(t *testing.T) {
	f := &fakeWebhook{status: http.StatusInternalServerError}
	p := start(t, f)
	var create []*endpoint.Endpoint
	for i := 0; i < 1000; i++ {
		create = append(create, endpoint.New(fmt.Sprintf("host%d.example.com", i), endpoint.RecordTypeA, "192.0.2.1"))
	}
	ae, ok := provider.AsApplyError(p.ApplyChanges(context.Background(), &plan.Changes{Create: create}))
	if !ok || len(ae.Rejected) != 1000 {
		t.Fatalf("want all 1000 changes reported, got %v", ae)
	}
	if budget := splitBudget(1000); f.posts > budget || f.posts < 2 {
		t.Errorf("%d POSTs, want at most the budget %d", f.posts, budget)
	}
	notSent := 0
	for _, r := range ae.Rejected {
		if strings.HasPrefix(r.Err.Error(), "not sent") {
			notSent++
		}
	}
	if notSent == 0 {
		t.Error("no change reported as not sent once the budget was spent")
	}
}
