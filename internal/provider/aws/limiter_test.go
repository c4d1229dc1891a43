package aws

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/smithy-go"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func TestLimiterAdapts(t *testing.T) {
	l := NewLimiter(10)
	throttle := &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
	observe(l, throttle)
	if l.Rate() != 5 {
		t.Fatalf("after a throttle: %v req/s, want 5", l.Rate())
	}
	observe(l, &smithy.GenericAPIError{Code: "PriorRequestNotComplete"})
	observe(l, throttle)
	observe(l, throttle)
	if l.Rate() != 1 {
		t.Fatalf("the rate must not fall below a tenth of the maximum: %v", l.Rate())
	}
	observe(l, errors.New("connection reset"))
	if l.Rate() != 1 {
		t.Fatalf("other errors must not change the rate: %v", l.Rate())
	}
	for range 10 {
		observe(l, nil)
	}
	if r := l.Rate(); r < 2.99 || r > 3.01 {
		t.Fatalf("10 successes must give back 20%% of the maximum: %v", r)
	}
	for range 100 {
		observe(l, nil)
	}
	if l.Rate() != 10 {
		t.Fatalf("the rate must recover to the maximum and no further: %v", l.Rate())
	}
	if l.Throttles() != 4 {
		t.Fatalf("throttles = %d, want 4", l.Throttles())
	}
}

// Throttling answers are retried by the SDK and slow the limiter down; the changes still apply.
func TestThrottlingRetriedAndSlowsDown(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{RequestsPerSecond: 1000})
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", Code: "Throttling", Count: 2}); err != nil {
		t.Fatal(err)
	}
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.com", "A", 60, "10.0.0.1")}}); err != nil {
		t.Fatalf("two throttles must be retried: %v", err)
	}
	if p.Limiter().Throttles() != 2 || p.Limiter().Rate() != 270 {
		t.Fatalf("throttles=%d rate=%v, want 2 and 270 (halved twice, then one success adds 2%% of the maximum)", p.Limiter().Throttles(), p.Limiter().Rate())
	}
}

// With the emulator's real quota (5 requests/s) and a client allowed more, the sync still converges.
func TestQuotaConverges(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{RateLimit: 5})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{RequestsPerSecond: 20, BatchChangeSize: 2})
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	var create []*endpoint.Endpoint
	for i := range 40 {
		create = append(create, ep(fmt.Sprintf("q%d.example.com", i), "A", 60, "10.0.0.1"))
	}
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: create}); err != nil {
		t.Fatal(err)
	}
	if got := len(dump(srv, "example.com.")); got != 40 {
		t.Fatalf("%d record sets, want 40", got)
	}
	if p.Limiter().Throttles() == 0 || p.Limiter().Rate() >= 20 {
		t.Fatalf("the limiter never slowed down: throttles=%d rate=%v", p.Limiter().Throttles(), p.Limiter().Rate())
	}
}

// Issue 11 defect 5: an API failure that Route 53 answered (access denied on one zone, a 5xx after the
// SDK's retries) applied nothing, since a batch is atomic. That zone's changes are reported as not
// applied (retried with backoff, the cache kept) and the other zones are written in the same call;
// before, the whole call failed and the controller listed every zone again.
func TestAnsweredFailureOfOneZoneKeepsTheOthers(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{ID: "ZDENIED", Name: "example.com"}, route53emu.SeedZone{ID: "ZOPEN", Name: "example.org"})
	p := newProvider(t, url, Config{})
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", ZoneID: "ZDENIED", Code: "AccessDenied"}); err != nil {
		t.Fatal(err)
	}
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{
		ep("a.example.com", "A", 60, "10.0.0.1"), ep("b.example.org", "A", 60, "10.0.0.2")}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.DNSName != "a.example.com" || !strings.Contains(ae.Rejected[0].Err.Error(), "AccessDenied") {
		t.Fatalf("want a.example.com not applied for AccessDenied, got %v", err)
	}
	recs, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.RecordType == "A" {
			got = append(got, r.DNSName)
		}
	}
	if fmt.Sprint(got) != "[b.example.org]" {
		t.Errorf("A records after the call: %v, want the other zone's change applied", got)
	}
	if n := srv.Counters().Calls["ListResourceRecordSets"]; n != 2 {
		t.Errorf("%d ListResourceRecordSets calls, want 2 (the first listing only: the cache is kept)", n)
	}
}

func isApplyError(err error) bool {
	_, ok := provider.AsApplyError(err)
	return ok
}
