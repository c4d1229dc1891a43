package azurednsemu

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// specOperation and specFile are the facts testdata/ holds about each
// swagger file.
type specOperation struct {
	ID        string            `json:"id"`
	Method    string            `json:"method"`
	Path      string            `json:"path"`
	Query     []string          `json:"query"`
	Headers   []string          `json:"headers"`
	Body      string            `json:"body"`
	Pageable  bool              `json:"pageable"`
	Responses map[string]string `json:"responses"`
}

type specFile struct {
	Source      string                       `json:"source"`
	APIVersion  string                       `json:"apiVersion"`
	Operations  []specOperation              `json:"operations"`
	Definitions map[string]map[string]string `json:"definitions"`
}

var specPaths = map[string]string{APIDNS: "testdata/dns-2018-05-01.json", APIPrivateDNS: "testdata/privatedns-2024-06-01.json"}

func loadSpec(t testing.TB, api string) specFile {
	t.Helper()
	b, err := os.ReadFile(specPaths[api])
	if err != nil {
		t.Fatal(err)
	}
	var f specFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkSchema checks a decoded JSON value against a definition: every key
// of every object must be a property of its definition, with the JSON kind
// the definition gives. It returns the problems found.
func checkSchema(defs map[string]map[string]string, typ string, v any, at string) []string {
	switch {
	case strings.HasPrefix(typ, "[]"):
		arr, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an array, got %T", at, v)}
		}
		var out []string
		for i, e := range arr {
			out = append(out, checkSchema(defs, typ[2:], e, fmt.Sprintf("%s[%d]", at, i))...)
		}
		return out
	case typ == "map[string]string":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %T", at, v)}
		}
		var out []string
		for k, e := range m {
			if _, ok := e.(string); !ok {
				out = append(out, fmt.Sprintf("%s.%s: want a string, got %T", at, k, e))
			}
		}
		return out
	case typ == "string":
		if _, ok := v.(string); !ok {
			return []string{fmt.Sprintf("%s: want a string, got %T", at, v)}
		}
		return nil
	case typ == "integer":
		if n, ok := v.(float64); !ok || n != float64(int64(n)) {
			return []string{fmt.Sprintf("%s: want an integer, got %v", at, v)}
		}
		return nil
	case typ == "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: want a boolean, got %T", at, v)}
		}
		return nil
	}
	def, ok := defs[typ]
	if !ok {
		return []string{fmt.Sprintf("%s: the swagger has no definition %s", at, typ)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: want a %s object, got %T", at, typ, v)}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		pt, ok := def[k]
		if !ok {
			out = append(out, fmt.Sprintf("%s.%s: not a property of %s", at, k, typ))
			continue
		}
		out = append(out, checkSchema(defs, pt, m[k], at+"."+k)...)
	}
	return out
}

// checkExchanges checks every ARM response the SDK saw against the response
// schema its operation has in the swagger (CloudError for errors), and
// returns how many were checked per operation.
func checkExchanges(t *testing.T, exs []exchange) map[string]int {
	t.Helper()
	specs := map[string]specFile{APIDNS: loadSpec(t, APIDNS), APIPrivateDNS: loadSpec(t, APIPrivateDNS)}
	checked := map[string]int{}
	for _, ex := range exs {
		if !strings.HasPrefix(ex.path, "/subscriptions/") {
			continue
		}
		rt, _, _ := match(routeTable(), ex.method, ex.path)
		if rt.ID == "" {
			t.Errorf("%s %s: the SDK called a path the route table does not have", ex.method, ex.path)
			continue
		}
		spec := specs[rt.API]
		var op specOperation
		for _, o := range spec.Operations {
			if o.ID == rt.ID {
				op = o
			}
		}
		schema, ok := op.Responses[fmt.Sprint(ex.status)]
		if !ok && ex.status >= 400 {
			schema, ok = "CloudError", true
		}
		if !ok {
			t.Errorf("%s %s: status %d is not a response %s has in the swagger", ex.method, ex.path, ex.status, op.ID)
			continue
		}
		checked[rt.Op()]++
		if schema == "" {
			if len(strings.TrimSpace(string(ex.body))) != 0 {
				t.Errorf("%s %s: status %d has no schema but the body is %s", ex.method, ex.path, ex.status, ex.body)
			}
			continue
		}
		var v any
		if err := json.Unmarshal(ex.body, &v); err != nil {
			t.Errorf("%s %s: body is not JSON: %v", ex.method, ex.path, err)
			continue
		}
		for _, p := range checkSchema(spec.Definitions, schema, v, rt.ID) {
			t.Errorf("%s %s: %s", ex.method, ex.path, p)
		}
	}
	return checked
}

// TestSchemaCheckFindsUnknownFields makes sure the check can fail.
func TestSchemaCheckFindsUnknownFields(t *testing.T) {
	defs := loadSpec(t, APIDNS).Definitions
	var v any
	_ = json.Unmarshal([]byte(`{"id":"x","properties":{"TTL":1,"targetResource":{"id":"y"},"ARecords":[{"ipv4Address":1}]}}`), &v)
	got := checkSchema(defs, "RecordSet", v, "RecordSet")
	want := []string{"RecordSet.properties.ARecords[0].ipv4Address: want a string, got float64", "RecordSet.properties.targetResource: not a property of RecordSetProperties"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %q, want %q", got, want)
	}
}
