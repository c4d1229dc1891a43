package pdns

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// requestLog counts the provider's requests to PowerDNS by method and path.
type requestLog struct {
	mu   sync.Mutex
	seen []string
	next http.RoundTripper
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.seen = append(l.seen, r.Method+" "+strings.TrimPrefix(r.URL.Path, "/api/v1/servers/localhost"))
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

// take returns the requests since the last take.
func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.seen
	l.seen = nil
	return out
}

func countingProvider(t *testing.T, s *server, domains ...string) (*Provider, *requestLog) {
	t.Helper()
	p, err := New(Config{Server: s.pdns.APIURL, APIKey: s.pdns.APIKey, DomainFilter: domains})
	if err != nil {
		t.Fatal(err)
	}
	next := p.api.http.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	log := &requestLog{next: next}
	p.api.http.Transport = log
	return p, log
}

func hasRecord(eps []*endpoint.Endpoint, name, target string) bool {
	for _, e := range eps {
		if e.DNSName == name && slices.Contains(e.Targets, target) {
			return true
		}
	}
	return false
}

// The zone probe is the zone list's SOA serials, against the real PowerDNS: our own writes are not
// taken for drift, an unchanged zone is not read again, and an rrset another client adds or edits
// through the API moves the serial, so that zone alone is read again.
func TestZoneProbeFollowsTheSerial(t *testing.T) {
	s := startServer(t, "example.com", "example.org")
	p, reqs := countingProvider(t, s, "example.com", "example.org")
	ctx := ctxT(t)

	if stale, err := p.CheckZones(ctx, 0); err != nil || len(stale) != 0 || len(reqs.take()) != 0 {
		t.Fatalf("before any listing: stale %v, %v; the probe must cost nothing", stale, err)
	}
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if got := reqs.take(); len(got) != 3 {
		t.Fatalf("first listing: %v, want the zone list and both zones", got)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("a.example.com", "A", "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	if got := reqs.take(); !slices.Equal(got, []string{"GET /zones", "PATCH /zones/example.com.", "GET /zones"}) {
		t.Fatalf("a write: %v, want the zone list, one PATCH and the zone list (the new serial)", got)
	}
	stale, err := p.CheckZones(ctx, 0)
	if err != nil || len(stale) != 0 {
		t.Fatalf("after our own write: stale %v, %v; want none", stale, err)
	}
	if got := reqs.take(); !slices.Equal(got, []string{"GET /zones"}) {
		t.Fatalf("probe: %v, want one GET of the zone list", got)
	}
	eps, err := p.Records(ctx)
	if err != nil || !hasRecord(eps, "a.example.com", "192.0.2.1") {
		t.Fatalf("Records after the write: %v, %v", eps, err)
	}
	if got := reqs.take(); len(got) != 0 {
		t.Fatalf("Records right after the probe, nothing changed: %v, want no request (the probe's zone list, no zone read)", got)
	}
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if got := reqs.take(); !slices.Equal(got, []string{"GET /zones"}) {
		t.Fatalf("Records again, nothing changed: %v, want the zone list only (no zone read again)", got)
	}

	// Another client adds an rrset to example.org and edits ours in example.com in place.
	s.seed(t, "example.org", "b.example.org", "A", 300, "192.0.2.2")
	stale, err = p.CheckZones(ctx, 0)
	if err != nil || !slices.Equal(stale, []string{"example.org"}) {
		t.Fatalf("after an out-of-band create: stale %v, %v; want example.org", stale, err)
	}
	reqs.take()
	eps, err = p.Records(ctx)
	if err != nil || !hasRecord(eps, "b.example.org", "192.0.2.2") || !hasRecord(eps, "a.example.com", "192.0.2.1") {
		t.Fatalf("Records after the out-of-band create: %v, %v", eps, err)
	}
	if got := reqs.take(); !slices.Equal(got, []string{"GET /zones/example.org."}) {
		t.Fatalf("relisting: %v, want example.org only", got)
	}
	s.seed(t, "example.com", "a.example.com", "A", 300, "192.0.2.9")
	if stale, err = p.CheckZones(ctx, 0); err != nil || !slices.Equal(stale, []string{"example.com"}) {
		t.Fatalf("after an out-of-band in-place edit: stale %v, %v; want example.com", stale, err)
	}
	if eps, err = p.Records(ctx); err != nil || !hasRecord(eps, "a.example.com", "192.0.2.9") {
		t.Fatalf("Records after the in-place edit: %v, %v", eps, err)
	}

	// Past the relisting period every zone is read again, serial or not.
	now := time.Now()
	p.now = func() time.Time { return now.Add(RelistPeriod) }
	if stale, err = p.CheckZones(ctx, 0); err != nil || len(stale) != 2 {
		t.Fatalf("after the relisting period: stale %v, %v; want both zones", stale, err)
	}
	p.now = time.Now
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if stale, err = p.CheckZones(ctx, time.Hour); err != nil || len(stale) != 0 {
		t.Fatalf("--provider-cache-time 1h, nothing changed: stale %v, %v", stale, err)
	}
}

// A change made behind our back between the last probe and our write is not hidden by the write:
// the write's zone list shows the serial moved, and the zone is read again.
func TestOutOfBandChangeBeforeOurWriteIsNotLost(t *testing.T) {
	s := startServer(t, "example.com")
	p, _ := countingProvider(t, s, "example.com")
	ctx := ctxT(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	s.seed(t, "example.com", "foreign.example.com", "A", 300, "192.0.2.7")
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("a.example.com", "A", "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	stale, err := p.CheckZones(ctx, 0)
	if err != nil || !slices.Equal(stale, []string{"example.com"}) {
		t.Fatalf("stale %v, %v; want example.com", stale, err)
	}
	eps, err := p.Records(ctx)
	if err != nil || !hasRecord(eps, "foreign.example.com", "192.0.2.7") || !hasRecord(eps, "a.example.com", "192.0.2.1") {
		t.Fatalf("Records: %v, %v", eps, err)
	}
}

// A zone whose serial does not move on API writes (SOA-EDIT-API unset) cannot be probed: it is read
// at every resync, as before the probe existed, and an out-of-band change in it is still seen.
func TestZoneWithoutSOAEditAPIIsReadEveryTime(t *testing.T) {
	s := startServer(t)
	if status, body := s.pdns.API(t, http.MethodPost, "/api/v1/servers/localhost/zones", map[string]any{
		"name": "fixed.org.", "kind": "Native", "nameservers": []string{"ns1.fixed.org."}, "soa_edit_api": ""}); status != http.StatusCreated {
		t.Fatalf("creating fixed.org: %d %s", status, body)
	}
	p, reqs := countingProvider(t, s, "fixed.org")
	ctx := ctxT(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	s.seed(t, "fixed.org", "b.fixed.org", "A", 300, "192.0.2.2")
	reqs.take()
	stale, err := p.CheckZones(ctx, 0)
	if err != nil || !slices.Equal(stale, []string{"fixed.org"}) {
		t.Fatalf("stale %v, %v; want fixed.org at every probe", stale, err)
	}
	if eps, err := p.Records(ctx); err != nil || !hasRecord(eps, "b.fixed.org", "192.0.2.2") {
		t.Fatalf("Records: %v, %v", eps, err)
	}
	if got := reqs.take(); !slices.Equal(got, []string{"GET /zones", "GET /zones/fixed.org."}) {
		t.Fatalf("requests: %v", got)
	}
}
