package route53emu_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"

	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

func control(t *testing.T, e *emu, method, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, e.url+"/_emulator/"+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

// refusal sends one control request and returns its status, the "error" of
// a refusal ("" for any other answer) and the whole answer.
func refusal(t *testing.T, e *emu, method, path, body string) (int, string, json.RawMessage) {
	t.Helper()
	var answer json.RawMessage
	st := control(t, e, method, path, body, &answer)
	var refused struct{ Error string }
	_ = json.Unmarshal(answer, &refused)
	return st, refused.Error, answer
}

func TestControlAPI(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	var seeded []route53emu.SeededZone
	if st := control(t, e, "POST", "seed", `{"zones":[{"name":"example.net","records":[{"name":"a.example.net","type":"A","ttl":60,"resourceRecords":["192.0.2.1"]}]}]}`, &seeded); st != 200 || len(seeded) != 1 {
		t.Fatalf("seed: %d %+v", st, seeded)
	}
	if st := control(t, e, "POST", "seed", `{"zones":[{"name":"bad.net","records":[{"name":"a.example.net","type":"A","ttl":60,"resourceRecords":["192.0.2.1"]}]}]}`, nil); st != 400 {
		t.Fatalf("seed with a record outside its zone: %d", st)
	}
	if st := control(t, e, "POST", "faults", `{"operation":"GetHostedZone","code":"AccessDenied","count":1}`, nil); st != 200 {
		t.Fatalf("faults: %d", st)
	}
	client := newClient(e.url, fastRetries)
	_, err := client.GetHostedZone(context.Background(), &route53.GetHostedZoneInput{Id: aws.String(seeded[0].ID)})
	if code, _ := apiError(t, err); code != "AccessDenied" {
		t.Fatalf("injected AccessDenied: %v", err)
	}
	if _, err := client.GetHostedZone(context.Background(), &route53.GetHostedZoneInput{Id: aws.String(seeded[0].ID)}); err != nil {
		t.Fatalf("fault with count 1 fired again: %v", err)
	}
	var calls []route53emu.Call
	control(t, e, "GET", "calls", "", &calls)
	if len(calls) != 2 || calls[0].ErrorCode != "AccessDenied" || calls[0].Status != 403 || calls[1].Status != 200 {
		t.Fatalf("calls %+v", calls)
	}
	if st := control(t, e, "PUT", "propagation-delay", `{"delay":"-1s"}`, nil); st != 400 {
		t.Fatalf("negative delay accepted: %d", st)
	}
	control(t, e, "POST", "reset", "", nil)
	var zones []route53emu.ZoneDump
	control(t, e, "GET", "zones", "", &zones)
	if len(zones) != 0 {
		t.Fatalf("after reset: %d zones", len(zones))
	}
}

// TestControlAPIRefusesFaultsThatAreNotErrors: a fault with a 2xx or 3xx
// status, or a negative count, is refused with a message naming the field,
// as the other emulators do, instead of answering a "failure" the SDK takes
// for a success.
func TestControlAPIRefusesFaultsThatAreNotErrors(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	for _, c := range []struct{ body, want string }{
		{`{"code":"Throttling","status":200}`, "control API faults: fault status 200: want an HTTP error status (400–599)"},
		{`{"code":"InternalError","status":302}`, "control API faults: fault status 302: want an HTTP error status (400–599)"},
		{`{"code":"InternalError","status":600}`, "control API faults: fault status 600: want an HTTP error status (400–599)"},
		{`{"code":"Throttling","count":-1}`, "control API faults: fault count -1: must not be negative"},
		{`{"status":503}`, "control API faults: field code is required (e.g. Throttling)"},
	} {
		if st, msg, answer := refusal(t, e, "POST", "faults", c.body); st != 400 || msg != c.want {
			t.Errorf("%s: %d %s, want 400 %q", c.body, st, answer, c.want)
		}
	}
	if err := e.srv.AddFault(route53emu.Fault{Code: "Throttling", Status: 204}); err == nil {
		t.Error("AddFault took a fault with status 204")
	}
	var faults []route53emu.Fault
	control(t, e, "GET", "faults", "", &faults)
	if len(faults) != 0 {
		t.Fatalf("refused faults were installed: %+v", faults)
	}
	if st := control(t, e, "POST", "faults", `{"code":"ServiceUnavailable","status":503,"count":1}`, &faults); st != 200 || len(faults) != 1 || faults[0].Status != 503 {
		t.Fatalf("a 503 fault: %d %+v", st, faults)
	}
}

// TestControlAPIRefusesUnknownFields: a misspelt field is a 400 naming it,
// not a setting left at its default (here a fault or a rate limit that would
// quietly differ from what the test meant).
func TestControlAPIRefusesUnknownFields(t *testing.T) {
	e := startEmu(t, route53emu.Options{})
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "faults", `{"code":"Throttling","stauts":503}`, `control API faults: unknown field "stauts"`},
		{"PUT", "rate-limit", `{"requestsPerSecond":5,"brust":5}`, `control API rate-limit: unknown field "brust"`},
		{"POST", "seed", `{"zones":[{"name":"example.net","tag":{"env":"test"}}]}`, `control API seed: unknown field "tag"`},
	} {
		if st, msg, answer := refusal(t, e, c.method, c.path, c.body); st != 400 || msg != c.want {
			t.Errorf("%s %s %s: %d %s, want 400 %q", c.method, c.path, c.body, st, answer, c.want)
		}
	}
	var faults []route53emu.Fault
	control(t, e, "GET", "faults", "", &faults)
	if len(faults) != 0 {
		t.Fatalf("a refused fault was installed: %+v", faults)
	}
}

// TestCountersSendThrottledAndTotal: Route 53's counters carry the
// "throttled" and "total" the other emulators send, next to "calls" and
// "errors". Route 53 throttles with 400 and a code, not 429, so throttled
// counts Throttling and PriorRequestNotComplete answers (the two the SDK
// and zonekeeper's limiter treat as "slow down").
func TestCountersSendThrottledAndTotal(t *testing.T) {
	now := time.Unix(1700000000, 0)
	e := startEmu(t, route53emu.Options{RateLimit: 1, Burst: 1, Now: func() time.Time { return now }})
	zoneID := e.createZone(t, "example.com")
	if err := e.srv.AddFault(route53emu.Fault{Operation: "ChangeResourceRecordSets", Code: "PriorRequestNotComplete", Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.AddFault(route53emu.Fault{Operation: "GetHostedZone", Code: "InternalError", Count: 1}); err != nil {
		t.Fatal(err)
	}
	client := newClient(e.url, func(o *route53.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	_, _ = client.ListHostedZones(ctx, &route53.ListHostedZonesInput{}) // Throttling: the one token went to createZone
	_, _ = client.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zoneID),
		ChangeBatch: batch(upsert(rrs("a.example.com", "A", 60, "192.0.2.1")))})
	_, _ = client.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: aws.String(zoneID)})
	var counters map[string]json.RawMessage
	control(t, e, "GET", "counters", "", &counters)
	if string(counters["throttled"]) != "2" || string(counters["total"]) != "4" ||
		string(counters["calls"]) != `{"ChangeResourceRecordSets":1,"CreateHostedZone":1,"GetHostedZone":1,"ListHostedZones":1}` ||
		string(counters["errors"]) != `{"ChangeResourceRecordSets:PriorRequestNotComplete":1,"GetHostedZone:InternalError":1,"ListHostedZones:Throttling":1}` {
		t.Fatalf("counters %s %s %s %s; want throttled 2 (Throttling, PriorRequestNotComplete), total 4", counters["calls"], counters["errors"], counters["throttled"], counters["total"])
	}
}
