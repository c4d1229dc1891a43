package emucontrol

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type fakeEmulator struct {
	resets, clears int
}

func (f *fakeEmulator) Reset()                   { f.resets++ }
func (f *fakeEmulator) Calls() []string          { return []string{"one"} }
func (f *fakeEmulator) ClearCalls()              { f.clears++ }
func (f *fakeEmulator) Counters() map[string]int { return map[string]int{"n": 1} }

func serve(routes Routes, method, path, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	Serve(rec, httptest.NewRequest(method, path, strings.NewReader(body)), 1<<10, DecodeJSON, routes)
	return rec
}

func TestServeBasicRoutesAndUnknownRoute(t *testing.T) {
	f := &fakeEmulator{}
	routes := Basic[string, map[string]int](f)
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/_emulator/reset", `{"status":"reset"}`},
		{"GET", "/_emulator/calls", `["one"]`},
		{"DELETE", "/_emulator/calls", `{"status":"cleared"}`},
		{"GET", "/_emulator/counters", `{"n":1}`},
	} {
		rec := serve(routes, c.method, c.path, "")
		if rec.Code != 200 || rec.Body.String() != c.want+"\n" || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d %q", c.method, c.path, rec.Code, rec.Body)
		}
	}
	if f.resets != 1 || f.clears != 1 {
		t.Fatalf("resets %d clears %d", f.resets, f.clears)
	}
	rec := serve(routes, "PUT", "/_emulator/calls", "")
	if rec.Code != 404 || rec.Body.String() != `{"error":"control API: no route PUT /_emulator/calls"}`+"\n" {
		t.Fatalf("unknown route: %d %q", rec.Code, rec.Body)
	}
}

func TestExchangeErrorsNameTheControlCall(t *testing.T) {
	routes := Routes{"POST faults": Setting(func(in struct {
		Duration string `json:"duration"`
	}) error {
		_, err := PositiveDuration("duration", in.Duration)
		return err
	})}
	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{`{`, 400, `{"error":"control API faults: invalid JSON body: unexpected end of JSON input"}`},
		{`{"duration":"0s"}`, 400, `{"error":"control API faults: field duration: want a positive Go duration such as \"60s\", got 0s"}`},
		{`{"duration":"soon"}`, 400, `{"error":"control API faults: field duration: want a positive Go duration such as \"60s\", got soon"}`},
		{`{}`, 200, `{"duration":""}`},
		{`{"duration":"90s"}`, 200, `{"duration":"90s"}`},
	} {
		rec := serve(routes, "POST", "/_emulator/faults", c.body)
		if rec.Code != c.status || rec.Body.String() != c.want+"\n" {
			t.Errorf("body %s: %d %s, want %d %s", c.body, rec.Code, rec.Body, c.status, c.want)
		}
	}
}

func TestReplyFaultsKeepsKeyOrderAndAddsRemaining(t *testing.T) {
	type fault struct {
		Status   int           `json:"status"`
		Duration time.Duration `json:"-"`
	}
	rec := httptest.NewRecorder()
	x := &Exchange{W: rec, R: httptest.NewRequest(http.MethodGet, "/_emulator/faults", nil), Path: "faults"}
	ReplyFaults(x, []fault{{Status: 503, Duration: 30 * time.Second}, {Status: 429}},
		func(f fault) time.Duration { return f.Duration }, "batchFailures", []string{"x"})
	want := `{"faults":[{"status":503,"remaining":"30s"},{"status":429}],"batchFailures":["x"]}` + "\n"
	if rec.Body.String() != want {
		t.Fatalf("got  %s want %s", rec.Body, want)
	}
	if got := string(withField([]byte(`{}`), "remaining", "1s")); got != `{"remaining":"1s"}` {
		t.Fatalf("field added to an empty object: %s", got)
	}
}

func TestAddingAndSeedingAnswers(t *testing.T) {
	var added []int
	routes := Routes{
		"POST faults": Adding(func(n int) error {
			if n < 0 {
				return errors.New("count must not be negative")
			}
			added = append(added, n)
			return nil
		}, func(x *Exchange) { x.Reply(added) }),
		"POST seed": Seeding(func(name string) (string, error) {
			if name == "" {
				return "", errors.New(`zone "": name is required`)
			}
			return "seeded " + name, nil
		}),
	}
	for _, c := range []struct {
		path, body string
		status     int
		want       string
	}{
		{"faults", `-1`, 400, `{"error":"control API faults: count must not be negative"}`},
		{"faults", `2`, 200, `[2]`},
		{"seed", `""`, 400, `{"error":"zone \"\": name is required"}`},
		{"seed", `"a.example"`, 200, `"seeded a.example"`},
	} {
		rec := serve(routes, "POST", "/_emulator/"+c.path, c.body)
		if rec.Code != c.status || rec.Body.String() != c.want+"\n" {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.path, c.body, rec.Code, rec.Body, c.status, c.want)
		}
	}
}

// TestDecodeJSONRefusesUnknownFields: a misspelt field ("stauts") is a 400
// naming it, not a setting silently left at its default; syntax errors keep
// the wording they had.
func TestDecodeJSONRefusesUnknownFields(t *testing.T) {
	type inner struct {
		Value string `json:"value"`
	}
	routes := Routes{"POST faults": Setting(func(in struct {
		Status int     `json:"status"`
		Items  []inner `json:"items"`
	}) error {
		return nil
	})}
	for _, c := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"stauts":503}`, 400, `{"error":"control API faults: unknown field \"stauts\""}`},
		{`{"status":503,"items":[{"value":"a","vaule":"b"}]}`, 400, `{"error":"control API faults: unknown field \"vaule\""}`},
		{``, 400, `{"error":"control API faults: invalid JSON body: unexpected end of JSON input"}`},
		{`{"status":`, 400, `{"error":"control API faults: invalid JSON body: unexpected end of JSON input"}`},
		{`{"status":"503"}`, 400, `{"error":"control API faults: invalid JSON body: json: cannot unmarshal string into Go struct field .status of type int"}`},
		{`{"status":503} {}`, 400, `{"error":"control API faults: invalid JSON body: invalid character '{' after top-level value"}`},
		{` {"status":503,"items":[{"value":"a"}]} `, 200, `{"status":503,"items":[{"value":"a"}]}`},
	} {
		rec := serve(routes, "POST", "/_emulator/faults", c.body)
		if rec.Code != c.status || rec.Body.String() != c.want+"\n" {
			t.Errorf("body %s: %d %s, want %d %s", c.body, rec.Code, rec.Body, c.status, c.want)
		}
	}
}
