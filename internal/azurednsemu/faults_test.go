package azurednsemu

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/dns/armdns"
)

func seedExample(t testing.TB, s *Server) {
	t.Helper()
	mustSeed(t, s, Seed{Subscriptions: []SeedSubscription{{ID: testSub, ResourceGroups: []SeedResourceGroup{
		{Name: testRG, Zones: []SeedZone{{Name: "example.com"}}}}}}})
}

func aSet(ip string) armdns.RecordSet {
	return armdns.RecordSet{Properties: &armdns.RecordSetProperties{TTL: ptr[int64](300), ARecords: []*armdns.ARecord{{IPv4Address: ptr(ip)}}}}
}

// TestThrottlingHonoursRetryAfter injects 429s with Retry-After and checks
// azcore's retry policy waits and retries (MaxRetries as external-dns's
// --azure-maxretries-count sets it), and that without retries the caller
// gets the 429 with its code.
func TestThrottlingHonoursRetryAfter(t *testing.T) {
	f := startTLS(t, Options{})
	seedExample(t, f.srv)
	ctx := context.Background()
	rc, err := armdns.NewRecordSetsClient(testSub, f.cred, f.armOptions(3))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.AddFault(Fault{Operation: OpRecordSetsCreateOrUpdate, Status: 429, Count: 2, RetryAfter: 1}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := rc.CreateOrUpdate(ctx, testRG, "example.com", "www", armdns.RecordTypeA, aSet("192.0.2.1"), nil); err != nil {
		t.Fatalf("after two 429s with three retries: %v", err)
	}
	if el := time.Since(start); el < 2*time.Second {
		t.Fatalf("two 429s with Retry-After: 1 took %v; the client did not wait", el)
	}
	c := f.srv.Counters()
	if c.Throttled != 2 || c.Calls[OpRecordSetsCreateOrUpdate] != 3 || c.Errors[OpRecordSetsCreateOrUpdate+":TooManyRequests"] != 2 {
		t.Fatalf("counters %+v", c)
	}
	for _, ex := range f.rec.exchanges() {
		if ex.status == 429 && !strings.Contains(string(ex.body), `"code":"TooManyRequests"`) {
			t.Fatalf("429 body %s", ex.body)
		}
	}

	noRetry, err := armdns.NewRecordSetsClient(testSub, f.cred, f.armOptions(-1))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.AddFault(Fault{Status: 429, Count: 1}); err != nil {
		t.Fatal(err)
	}
	_, err = noRetry.Get(ctx, testRG, "example.com", "www", armdns.RecordTypeA, nil)
	responseError(t, err, http.StatusTooManyRequests, "TooManyRequests")

	// 5xx: retried by the SDK; a fault for another zone does not fire.
	if err := f.srv.AddFault(Fault{Zone: "other.example", Status: 500}); err != nil {
		t.Fatal(err)
	}
	if err := f.srv.AddFault(Fault{Operation: "dns/RecordSets_Get", Status: 503, Count: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Get(ctx, testRG, "example.com", "www", armdns.RecordTypeA, nil); err != nil {
		t.Fatalf("one 503 with retries: %v", err)
	}
	if got := f.srv.Counters().Errors["dns/RecordSets_Get:InternalServerError"]; got != 1 {
		t.Fatalf("503 counted %d times under its code", got)
	}
	faults, _ := f.srv.Faults()
	if len(faults) != 1 || faults[0].Zone != "other.example" {
		t.Fatalf("remaining faults %+v", faults)
	}
}

// TestRateLimitPerSubscription checks the token bucket answers 429
// SubscriptionRequestsThrottled with Retry-After above the rate, per
// subscription.
func TestRateLimitPerSubscription(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s := New(Options{RateLimit: 1, Burst: 2, RetryAfter: 7, Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	mustSeed(t, s, Seed{Subscriptions: []SeedSubscription{{ID: "s1"}, {ID: "s2"}}})
	get := func(sub string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/subscriptions/"+sub+"/providers/Microsoft.Network/dnszones?api-version=2018-05-01", nil)
		req.Header.Set("Authorization", "Bearer "+s.IssueToken())
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w
	}
	for i := 0; i < 2; i++ {
		if w := get("s1"); w.Code != 200 {
			t.Fatalf("call %d within the burst: %d %s", i, w.Code, w.Body)
		}
	}
	w := get("s1")
	if w.Code != 429 || w.Header().Get("Retry-After") != "7" || !strings.Contains(w.Body.String(), "SubscriptionRequestsThrottled") {
		t.Fatalf("over the burst: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if w := get("s2"); w.Code != 200 {
		t.Fatalf("another subscription is throttled too: %d", w.Code)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if w := get("s1"); w.Code != 200 {
		t.Fatalf("after a second: %d", w.Code)
	}
	if err := s.SetRateLimit(-1, 0, 0); err == nil {
		t.Fatal("a negative rate is accepted")
	}
}

// TestWriteFailuresLeaveTheZoneUnchanged injects a failure for one record
// name and checks PUT, PATCH and DELETE of it fail with the chosen status
// and code, other names are written, and the zone keeps its old data.
func TestWriteFailuresLeaveTheZoneUnchanged(t *testing.T) {
	f := startTLS(t, Options{})
	mustSeed(t, f.srv, Seed{Subscriptions: []SeedSubscription{{ID: testSub, ResourceGroups: []SeedResourceGroup{{Name: testRG,
		Zones: []SeedZone{{Name: "example.com", RecordSets: []SeedRecordSet{{Name: "bad", Type: "A", TTL: 60, Records: []string{"192.0.2.7"}}}}}}}}}})
	ctx := context.Background()
	rc, err := armdns.NewRecordSetsClient(testSub, f.cred, f.armOptions(-1))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.FailWrites(WriteFailure{RecordName: "BAD", Status: 409, Code: "Conflict", Count: 3}); err != nil {
		t.Fatal(err)
	}
	_, err = rc.CreateOrUpdate(ctx, testRG, "example.com", "bad", armdns.RecordTypeA, aSet("192.0.2.8"), nil)
	responseError(t, err, http.StatusConflict, "Conflict")
	_, err = rc.Update(ctx, testRG, "example.com", "bad", armdns.RecordTypeA, aSet("192.0.2.8"), nil)
	responseError(t, err, http.StatusConflict, "Conflict")
	_, err = rc.Delete(ctx, testRG, "example.com", "bad", armdns.RecordTypeA, nil)
	responseError(t, err, http.StatusConflict, "Conflict")
	if _, err := rc.CreateOrUpdate(ctx, testRG, "example.com", "good", armdns.RecordTypeA, aSet("192.0.2.9"), nil); err != nil {
		t.Fatal(err)
	}
	got, err := rc.Get(ctx, testRG, "example.com", "bad", armdns.RecordTypeA, nil)
	if err != nil || *got.Properties.ARecords[0].IPv4Address != "192.0.2.7" {
		t.Fatalf("the failed writes changed the set: %+v (%v)", got.RecordSet, err)
	}
	// The count is used up: the next write goes through.
	if _, err := rc.Delete(ctx, testRG, "example.com", "bad", armdns.RecordTypeA, nil); err != nil {
		t.Fatalf("fourth write: %v", err)
	}
	if err := f.srv.FailWrites(WriteFailure{}); err == nil {
		t.Fatal("a write failure without recordName is accepted")
	}
}

// TestTimedFaultExpires checks a fault with a duration stops firing.
func TestTimedFaultExpires(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s := New(Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	seedExample(t, s)
	if err := s.AddFault(Fault{Status: 500, Duration: time.Minute}); err != nil {
		t.Fatal(err)
	}
	path := "/subscriptions/" + testSub + "/resourceGroups/" + testRG + "/providers/Microsoft.Network/dnsZones/example.com?api-version=2018-05-01"
	if code, _ := armCall(t, s, "GET", path); code != 500 {
		t.Fatalf("during the fault: %d", code)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+s.IssueToken())
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("after the fault's minute: %d %s", w.Code, w.Body)
	}
	if err := s.AddFault(Fault{Status: 302}); err == nil {
		t.Fatal("a non-error status is accepted")
	}
}
