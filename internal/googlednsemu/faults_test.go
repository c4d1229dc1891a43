package googlednsemu

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dns "google.golang.org/api/dns/v1"
)

// fakeClock is a settable clock safe for the server goroutines.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestRateLimitPerProject: the bucket's burst passes, the next call gets
// 429 rateLimitExceeded through the SDK, a second later a token is back;
// another project has its own bucket; throttled calls are counted.
func TestRateLimitPerProject(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)}
	e := newEnv(t, Options{RateLimit: 1, Burst: 2, Now: clock.now})
	e.seedStandard(t)
	if err := e.emu.AddProject("other-project"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.svc.ManagedZones.List(testProject).Do(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.svc.ManagedZones.List(testProject).Do()
	if ge := apiErr(t, err, http.StatusTooManyRequests, "rateLimitExceeded"); !strings.Contains(ge.Message, testProject) {
		t.Errorf("429 message %q does not name the project", ge.Message)
	}
	if _, err := e.svc.ManagedZones.List("other-project").Do(); err != nil {
		t.Fatalf("other project throttled: %v", err)
	}
	clock.add(time.Second)
	if _, err := e.svc.ManagedZones.List(testProject).Do(); err != nil {
		t.Fatalf("after a second: %v", err)
	}
	c := e.emu.Counters()
	if c.Throttled != 1 || c.Errors[OpZonesList+":rateLimitExceeded"] != 1 || c.Calls[OpZonesList] != 5 {
		t.Fatalf("counters %+v", c)
	}
	if err := e.emu.SetRateLimit(0, 0); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := e.svc.ManagedZones.List(testProject).Do(); err != nil {
			t.Fatalf("limit off: %v", err)
		}
	}
}

// TestInjectedFaults: a counted 503 on one operation, a timed 500 on all,
// a 429 fault, and a change failure that fails the whole change and leaves
// the zone untouched, while other changes pass.
func TestInjectedFaults(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)}
	e := newEnv(t, Options{Now: clock.now})
	e.seedStandard(t)
	if err := e.emu.AddFault(Fault{Operation: OpRRSetsList, Status: 503, Count: 2}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Do()
		apiErr(t, err, 503, "backendError")
	}
	if _, err := e.svc.ManagedZones.List(testProject).Do(); err != nil {
		t.Fatalf("other operation hit by the fault: %v", err)
	}
	if _, err := e.svc.ResourceRecordSets.List(testProject, "public-zone").Do(); err != nil {
		t.Fatalf("fault did not run out after 2: %v", err)
	}
	if err := e.emu.AddFault(Fault{Status: 500, Duration: time.Minute}); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.ManagedZones.Get(testProject, "public-zone").Do()
	apiErr(t, err, 500, "backendError")
	clock.add(time.Minute)
	if _, err := e.svc.ManagedZones.Get(testProject, "public-zone").Do(); err != nil {
		t.Fatalf("timed fault did not end: %v", err)
	}
	if err := e.emu.AddFault(Fault{Operation: OpChangesPost, Zone: "public-zone", Status: 429, Count: 1}); err != nil {
		t.Fatal(err)
	}
	apiErr(t, e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{rrs("x.example.com.", "A", 60, "192.0.2.1")}}), 429, "rateLimitExceeded")

	if err := e.emu.FailChanges(ChangeFailure{RecordName: "bad.example.com", RecordType: "TXT", Message: "rejected for the test"}); err != nil {
		t.Fatal(err)
	}
	before := e.zoneDump(t, "public-zone")
	err = e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{
		rrs("good.example.com.", "A", 60, "192.0.2.1"), rrs("bad.example.com.", "TXT", 60, `"x"`)}})
	if ge := apiErr(t, err, 400, "invalid"); ge.Message != "rejected for the test" {
		t.Errorf("change failure message %q", ge.Message)
	}
	if after := e.zoneDump(t, "public-zone"); len(after) != len(before) {
		t.Fatal("a failed change was partly applied")
	}
	if err := e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{rrs("bad.example.com.", "A", 60, "192.0.2.1")}}); err != nil {
		t.Fatalf("other type at the failing name: %v", err)
	}
	faults, changes := e.emu.Faults()
	if len(faults) != 0 || len(changes) != 1 {
		t.Fatalf("faults %+v changes %+v", faults, changes)
	}
	e.emu.ClearFaults()
	if err := e.create(&dns.Change{Additions: []*dns.ResourceRecordSet{rrs("bad.example.com.", "TXT", 60, `"x"`)}}); err != nil {
		t.Fatalf("after ClearFaults: %v", err)
	}
}

// TestControlAPI drives the /_emulator/ hooks over HTTP.
func TestControlAPI(t *testing.T) {
	e := newEnv(t, Options{})
	do := func(method, path, body string, out any) int {
		t.Helper()
		req, err := http.NewRequest(method, e.srv.URL+"/_emulator/"+path, bytes.NewBufferString(body))
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
				t.Fatal(err)
			}
		}
		return resp.StatusCode
	}
	var seeded []SeededZone
	if s := do("POST", "seed", `{"projects":[{"id":"emu-project","zones":[{"name":"z1","dnsName":"example.com","rrsets":[{"name":"www","type":"A","ttl":60,"rrdatas":["192.0.2.1"]}]}]}]}`, &seeded); s != 200 || len(seeded) != 1 || seeded[0].DNSName != "example.com." {
		t.Fatalf("seed: %d %+v", s, seeded)
	}
	var bad map[string]string
	if s := do("POST", "seed", `{"projects":[{"id":"emu-project","zones":[{"name":"z2","dnsName":"example.org","rrsets":[{"name":"www","type":"A","ttl":60,"rrdatas":["nope"]}]}]}]}`, &bad); s != 400 || !strings.Contains(bad["error"], "z2") || !strings.Contains(bad["error"], "rrdata[0]") {
		t.Fatalf("bad seed: %d %v", s, bad)
	}
	if s := do("POST", "seed", `{"projects":[{"id":"emu-project","zonez":[]}]}`, &bad); s != 400 || !strings.Contains(bad["error"], "zonez") {
		t.Fatalf("unknown seed field: %d %v", s, bad)
	}
	if s := do("POST", "faults", `{"stauts":503}`, &bad); s != 400 || !strings.Contains(bad["error"], `"stauts"`) {
		t.Fatalf("unknown fault field: %d %v", s, bad)
	}
	var tok map[string]any
	do("POST", "token", `{"scopes":["`+ScopeReadWrite+`"]}`, &tok)
	if _, err := e.svc.ResourceRecordSets.List(testProject, "z1").Do(); err != nil {
		t.Fatal(err)
	}
	if status, _ := call(t, e.srv.URL, "GET", "/dns/v1/projects/"+testProject+"/managedZones/z1", tok["access_token"].(string), ""); status != 200 {
		t.Fatalf("control token refused: %d", status)
	}
	var dump []ZoneDump
	do("GET", "dump?ids=false", "", &dump)
	if len(dump) != 1 || dump[0].ID != "" || len(dump[0].RRSets) != 3 || dump[0].RRSets[2].Name != "www.example.com." {
		t.Fatalf("dump %+v", dump)
	}
	var calls []Call
	do("GET", "calls", "", &calls)
	if len(calls) != 3 || calls[0].Operation != OpToken || calls[1].Operation != OpRRSetsList || calls[1].Zone != "z1" || calls[1].Project != testProject {
		t.Fatalf("calls %+v", calls)
	}
	var faults struct {
		Faults         []map[string]any
		ChangeFailures []ChangeFailure
	}
	if s := do("POST", "faults", `{"operation":"dns.changes.create","status":503,"duration":"30s"}`, &faults); s != 200 || len(faults.Faults) != 1 || faults.Faults[0]["remaining"] == nil {
		t.Fatalf("faults: %d %+v", s, faults)
	}
	if s := do("POST", "change-failures", `{"recordName":"www.example.com.","status":412,"reason":"conditionNotMet"}`, &faults); s != 200 || len(faults.ChangeFailures) != 1 {
		t.Fatalf("change failures: %d %+v", s, faults)
	}
	do("DELETE", "faults", "", &faults)
	if len(faults.Faults)+len(faults.ChangeFailures) != 0 {
		t.Fatalf("faults not cleared: %+v", faults)
	}
	if s := do("PUT", "rate-limit", `{"requestsPerSecond":-1}`, &bad); s != 400 {
		t.Fatalf("negative rate: %d", s)
	}
	var routes []Route
	do("GET", "routes", "", &routes)
	if len(routes) != len(Routes()) {
		t.Fatalf("routes %d", len(routes))
	}
	do("POST", "reset", "", nil)
	do("GET", "dump", "", &dump)
	if len(dump) != 0 || len(e.emu.Calls()) != 0 {
		t.Fatalf("after reset: %+v", dump)
	}
}
