package aws

import (
	"errors"
	"fmt"
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
	l.observe(throttle)
	if l.Rate() != 5 {
		t.Fatalf("after a throttle: %v req/s, want 5", l.Rate())
	}
	l.observe(&smithy.GenericAPIError{Code: "PriorRequestNotComplete"})
	l.observe(throttle)
	l.observe(throttle)
	if l.Rate() != 1 {
		t.Fatalf("the rate must not fall below a tenth of the maximum: %v", l.Rate())
	}
	l.observe(errors.New("connection reset"))
	if l.Rate() != 1 {
		t.Fatalf("other errors must not change the rate: %v", l.Rate())
	}
	for range 10 {
		l.observe(nil)
	}
	if r := l.Rate(); r < 2.99 || r > 3.01 {
		t.Fatalf("10 successes must give back 20%% of the maximum: %v", r)
	}
	for range 100 {
		l.observe(nil)
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
	srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", Code: "Throttling", Count: 2})
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

// An error that is not a rejection of the batch (access denied) ends the call with a plain error.
func TestAccessDeniedIsAnError(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{})
	if _, err := p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", Code: "AccessDenied", Count: 1})
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: []*endpoint.Endpoint{ep("a.example.com", "A", 60, "10.0.0.1")}})
	if err == nil || isApplyError(err) {
		t.Fatalf("want a plain error, got %v", err)
	}
}

func isApplyError(err error) bool {
	_, ok := provider.AsApplyError(err)
	return ok
}
