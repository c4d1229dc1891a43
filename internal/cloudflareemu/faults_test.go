package cloudflareemu

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	cloudflare "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/dns"
	"github.com/cloudflare/cloudflare-go/v7/option"
	"github.com/cloudflare/cloudflare-go/v7/zones"
)

// fakeClock is a settable clock for Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestRateLimitTokenBucket(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	env := newEnv(t, Options{RateLimit: 4, Burst: 4, Now: clock.Now})
	path := APIPrefix + "zones"
	for i := 0; i < 4; i++ {
		if status, e := env.do(t, http.MethodGet, path, nil); status != 200 {
			t.Fatalf("request %d within the burst: %d %s", i, status, e.raw)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, env.http.URL+path, nil)
	req.Header.Set("Authorization", "Bearer test-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("5th request: %d Retry-After %q, want 429 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if status, e := env.do(t, http.MethodGet, path, nil); status != 429 || e.code() != CodeRateLimited || e.Errors[0].Message != msgRateLimited {
		t.Fatalf("throttled envelope: %d %s", status, e.raw)
	}
	clock.Advance(250 * time.Millisecond) // one token at 4/s
	if status, _ := env.do(t, http.MethodGet, path, nil); status != 200 {
		t.Fatalf("after 250ms: %d", status)
	}
	if status, _ := env.do(t, http.MethodGet, path, nil); status != 429 {
		t.Fatalf("bucket should be empty again: %d", status)
	}
	if c := env.srv.Counters(); c.Throttled != 3 || c.Errors[OpZonesList+":10000"] != 3 {
		t.Fatalf("counters: %+v", c)
	}
}

// TestSDKHonoursRetryAfter shows the emulator's 429 is one the real SDK
// retries after waiting Retry-After.
func TestSDKHonoursRetryAfter(t *testing.T) {
	env := newEnv(t, Options{RateLimit: 1, Burst: 1})
	client := cloudflare.NewClient(option.WithBaseURL(env.http.URL+APIPrefix), option.WithAPIToken("x"))
	ctx := context.Background()
	if _, err := client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(env.zoneID)}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := client.Zones.Get(ctx, zones.ZoneGetParams{ZoneID: cloudflare.F(env.zoneID)}); err != nil {
		t.Fatalf("the SDK should retry a 429 and succeed: %v", err)
	}
	calls := env.srv.Calls()
	if len(calls) != 3 || calls[1].Status != 429 || calls[2].Status != 200 || calls[2].Retry != 1 {
		t.Fatalf("calls: %+v", calls)
	}
	if waited := time.Since(start); waited < 900*time.Millisecond {
		t.Fatalf("the SDK retried after %v; Retry-After: 1 asks for a second", waited)
	}
}

func TestInjectedServerErrors(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	env := newEnv(t, Options{Now: clock.Now})
	if err := env.srv.AddFault(Fault{Operation: OpZonesList, Status: 503, Count: 2}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{503, 503, 200} {
		if status, e := env.do(t, http.MethodGet, APIPrefix+"zones", nil); status != want {
			t.Fatalf("request %d: %d %s, want %d", i, status, e.raw, want)
		}
	}
	if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones/"+env.zoneID, nil); status != 200 {
		t.Fatal("a fault for zones.list must not hit zones.get")
	}
	if err := env.srv.AddFault(Fault{Status: 500, Duration: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if status, e := env.do(t, http.MethodGet, APIPrefix+"zones/"+env.zoneID, nil); status != 500 || e.code() != CodeInternal {
		t.Fatalf("timed fault: %d %s", status, e.raw)
	}
	clock.Advance(11 * time.Second)
	if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones/"+env.zoneID, nil); status != 200 {
		t.Fatalf("timed fault still firing after its duration: %d", status)
	}
	if f, _ := env.srv.Faults(); len(f) != 0 {
		t.Fatalf("expired faults still listed: %+v", f)
	}
	if err := env.srv.AddFault(Fault{Status: 200}); err == nil {
		t.Fatal("a fault with a success status must be refused")
	}
}

func TestBatchFailureFault(t *testing.T) {
	env := newEnv(t, Options{})
	if err := env.srv.FailBatches(BatchFailure{RecordName: "bad.example.com", Code: 9005, Message: "Content for A record is invalid."}); err != nil {
		t.Fatal(err)
	}
	post := func(name string) dns.RecordBatchParamsPostUnion {
		return dns.RecordBatchParamsPost{Name: cloudflare.F(name), Type: cloudflare.F(dns.RecordBatchParamsPostsTypeA),
			TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("192.0.2.1")}
	}
	ctx := context.Background()
	_, err := env.client.DNS.Records.Batch(ctx, dns.RecordBatchParams{ZoneID: cloudflare.F(env.zoneID),
		Posts: cloudflare.F([]dns.RecordBatchParamsPostUnion{post("good.example.com"), post("bad.example.com")})})
	if status, code := sdkErrorCode(t, err); status != 400 || code != 9005 {
		t.Fatalf("batch with the chosen record: %d %d", status, code)
	}
	if n := len(env.srv.Dump()[0].Records); n != 0 {
		t.Fatalf("failed batch applied %d records", n)
	}
	if _, err := env.client.DNS.Records.Batch(ctx, dns.RecordBatchParams{ZoneID: cloudflare.F(env.zoneID),
		Posts: cloudflare.F([]dns.RecordBatchParamsPostUnion{post("good.example.com")})}); err != nil {
		t.Fatalf("batch without the chosen record: %v", err)
	}
	// Without IncludeSingle the single-record endpoint accepts the record,
	// which is what a client's one-by-one fallback would see.
	if _, err := env.client.DNS.Records.New(ctx, dns.RecordNewParams{ZoneID: cloudflare.F(env.zoneID),
		Body: dns.ARecordParam{Name: cloudflare.F("bad.example.com"), Type: cloudflare.F(dns.ARecordTypeA), TTL: cloudflare.F(dns.TTL(1)), Content: cloudflare.F("192.0.2.1")}}); err != nil {
		t.Fatalf("single create of the chosen record: %v", err)
	}
	env.srv.ClearFaults()
	if err := env.srv.FailBatches(BatchFailure{RecordName: "single.example.com", IncludeSingle: true, Count: 1}); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"name": "single", "type": "TXT", "content": "x"}
	if status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records", body); status != 400 || e.code() != CodeBatchFault {
		t.Fatalf("IncludeSingle: %d %s", status, e.raw)
	}
	if status, e := env.do(t, http.MethodPost, APIPrefix+"zones/"+env.zoneID+"/dns_records", body); status != 200 {
		t.Fatalf("Count 1 should have used the fault up: %d %s", status, e.raw)
	}
}

func TestTimedRateLimitRestoresPreviousSetting(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	env := newEnv(t, Options{Now: clock.Now})
	if status := control(t, env, "PUT", "rate-limit", `{"requestsPerSecond":4,"burst":4,"duration":"60s"}`, nil); status != 200 {
		t.Fatalf("timed rate limit over HTTP: %d", status)
	}
	statuses := func(n int) (ok, throttled int) {
		for i := 0; i < n; i++ {
			if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones", nil); status == 429 {
				throttled++
			} else {
				ok++
			}
		}
		return
	}
	if ok, throttled := statuses(10); ok != 4 || throttled != 6 {
		t.Fatalf("inside the window: %d ok, %d throttled; want 4 and 6", ok, throttled)
	}
	clock.Advance(59 * time.Second)
	if ok, throttled := statuses(10); ok != 4 || throttled != 6 {
		t.Fatalf("at 59 s (bucket refilled to its burst of 4): %d ok, %d throttled", ok, throttled)
	}
	clock.Advance(2 * time.Second)
	if ok, throttled := statuses(50); ok != 50 || throttled != 0 {
		t.Fatalf("after the window the unlimited setting must return: %d ok, %d throttled", ok, throttled)
	}
}

// TestRateLimitSetDuringATimedWindowWins: turning throttling off while a
// timed window runs keeps it off after the window's end; before, the
// setting from before the window (here 1/s) came back.
func TestRateLimitSetDuringATimedWindowWins(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	env := newEnv(t, Options{Now: clock.Now, RateLimit: 1, Burst: 1})
	if status := control(t, env, "PUT", "rate-limit", `{"requestsPerSecond":4,"burst":4,"duration":"60s"}`, nil); status != 200 {
		t.Fatalf("timed rate limit: %d", status)
	}
	clock.Advance(10 * time.Second)
	if status := control(t, env, "PUT", "rate-limit", `{"requestsPerSecond":0}`, nil); status != 200 {
		t.Fatalf("rate limit off: %d", status)
	}
	clock.Advance(60 * time.Second)
	throttled := 0
	for range 20 {
		if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones", nil); status == 429 {
			throttled++
		}
	}
	if throttled != 0 {
		t.Fatalf("%d of 20 requests throttled after the window: the limit turned off during it must stay off", throttled)
	}
}
