package cloudflareemu

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// control sends one control API request and decodes the JSON answer.
func control(t *testing.T, env *testEnv, method, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, env.http.URL+controlPrefix+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

func TestControlAPI(t *testing.T) {
	env := newEnv(t, Options{})
	var seeded []SeededZone
	if status := control(t, env, "POST", "seed", `{"zones":[{"name":"example.org","plan":"pro","records":[
		{"name":"www","type":"A","content":"192.0.2.1","ttl":300,"comment":"c","tags":["team:dns"]},
		{"name":"@","type":"MX","content":"mx.example.net","priority":10},
		{"name":"_sip._tcp","type":"SRV","data":{"priority":1,"weight":2,"port":5060,"target":"sip.example.net"}}]}]}`, &seeded); status != 200 || len(seeded) != 1 || !isID(seeded[0].ID) {
		t.Fatalf("seed: %d %+v", status, seeded)
	}
	var dump []ZoneDump
	control(t, env, "GET", "dump?ids=false", "", &dump)
	if len(dump) != 2 || dump[1].Name != "example.org" || len(dump[1].Records) != 3 || dump[1].ID != "" || dump[1].Records[0].ID != "" {
		t.Fatalf("dump: %+v", dump)
	}
	srv := dump[1].Records[0]
	if srv.Type != "SRV" || srv.Content != "2 5060 sip.example.net" || srv.Data["port"] != float64(5060) {
		t.Fatalf("SRV record dump: %+v", srv)
	}
	var errOut map[string]string
	if status := control(t, env, "POST", "seed", `{"zones":[{"name":"bad.org","records":[{"name":"x","type":"A","content":"nope"}]}]}`, &errOut); status != 400 || !strings.Contains(errOut["error"], "bad.org") {
		t.Fatalf("bad seed: %d %v", status, errOut)
	}
	if status := control(t, env, "POST", "faults", `{"operation":"zones.list","status":503,"duration":"1h"}`, nil); status != 200 {
		t.Fatalf("add fault: %d", status)
	}
	if status := control(t, env, "POST", "batch-failures", `{"recordName":"www.example.org","code":9005}`, nil); status != 200 {
		t.Fatalf("add batch failure: %d", status)
	}
	if status := control(t, env, "POST", "faults", `{"status":503,"duration":"soon"}`, &errOut); status != 400 || !strings.Contains(errOut["error"], "duration") {
		t.Fatalf("bad duration: %d %v", status, errOut)
	}
	var faults struct {
		Faults []struct {
			Operation string
			Status    int
			Remaining string
		}
		BatchFailures []BatchFailure
	}
	control(t, env, "GET", "faults", "", &faults)
	if len(faults.Faults) != 1 || faults.Faults[0].Status != 503 || faults.Faults[0].Remaining == "" || len(faults.BatchFailures) != 1 {
		t.Fatalf("faults: %+v", faults)
	}
	if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones", nil); status != 503 {
		t.Fatalf("fault set over HTTP did not fire: %d", status)
	}
	control(t, env, "DELETE", "faults", "", nil)
	if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones", nil); status != 200 {
		t.Fatalf("after clearing faults: %d", status)
	}
	if status := control(t, env, "PUT", "rate-limit", `{"requestsPerSecond":1,"burst":1}`, nil); status != 200 {
		t.Fatal("rate-limit")
	}
	env.do(t, http.MethodGet, APIPrefix+"zones", nil)
	if status, _ := env.do(t, http.MethodGet, APIPrefix+"zones", nil); status != 429 {
		t.Fatalf("rate limit set over HTTP: %d", status)
	}
	var counters Counters
	control(t, env, "GET", "counters", "", &counters)
	if counters.Calls[OpZonesList] != 4 || counters.Throttled != 1 {
		t.Fatalf("counters: %+v", counters)
	}
	var calls []Call
	control(t, env, "GET", "calls", "", &calls)
	if len(calls) != 4 || calls[3].Status != 429 {
		t.Fatalf("calls: %+v", calls)
	}
	var routes []Route
	control(t, env, "GET", "routes", "", &routes)
	if len(routes) != len(Routes()) {
		t.Fatalf("routes: %d", len(routes))
	}
	control(t, env, "POST", "reset", "", nil)
	if d := env.srv.Dump(); len(d) != 0 {
		t.Fatalf("reset left %d zones", len(d))
	}
	if status := control(t, env, "GET", "nothing", "", &errOut); status != 404 {
		t.Fatalf("unknown control path: %d", status)
	}
}

// TestControlAPIRefusesUnknownFields: a misspelt field is a 400 naming it;
// before, {"stauts":503} installed a fault with the default status 500.
func TestControlAPIRefusesUnknownFields(t *testing.T) {
	env := newEnv(t, Options{})
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "faults", `{"stauts":503}`, `control API faults: unknown field "stauts"`},
		{"POST", "batch-failures", `{"recordName":"www.example.org","includeSingel":true}`, `control API batch-failures: unknown field "includeSingel"`},
		{"PUT", "rate-limit", `{"requestsPerSecond":0,"duraton":"60s"}`, `control API rate-limit: unknown field "duraton"`},
		{"POST", "seed", `{"zones":[{"name":"example.org","records":[{"name":"www","type":"A","content":"192.0.2.1","tll":60}]}]}`, `control API seed: unknown field "tll"`},
	} {
		var answer json.RawMessage
		status := control(t, env, c.method, c.path, c.body, &answer)
		var refusal struct{ Error string }
		_ = json.Unmarshal(answer, &refusal)
		if status != 400 || refusal.Error != c.want {
			t.Errorf("%s %s %s: %d %s, want 400 %q", c.method, c.path, c.body, status, answer, c.want)
		}
	}
	var faults struct {
		Faults        []Fault        `json:"faults"`
		BatchFailures []BatchFailure `json:"batchFailures"`
	}
	control(t, env, "GET", "faults", "", &faults)
	if len(faults.Faults)+len(faults.BatchFailures) != 0 {
		t.Fatalf("refused faults were installed: %+v", faults)
	}
}
