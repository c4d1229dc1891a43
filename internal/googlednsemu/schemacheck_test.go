package googlednsemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// discoverySchema is a schema of the discovery document (the parts the
// emulator's answers use).
type discoverySchema struct {
	ID                   string                     `json:"id"`
	Type                 string                     `json:"type"`
	Format               string                     `json:"format"`
	Ref                  string                     `json:"$ref"`
	Enum                 []string                   `json:"enum"`
	Properties           map[string]discoverySchema `json:"properties"`
	Items                *discoverySchema           `json:"items"`
	AdditionalProperties *discoverySchema           `json:"additionalProperties"`
}

// checkAgainstSchema walks a JSON value and reports every key the schema
// does not declare, every value of the wrong JSON type or format, and every
// value outside an enum.
func checkAgainstSchema(d discoveryDoc, s discoverySchema, v any, at string) []string {
	if s.Ref != "" {
		ref, ok := d.Schemas[s.Ref]
		if !ok {
			return []string{at + ": unknown schema " + s.Ref}
		}
		s = ref
	}
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, at+": "+fmt.Sprintf(format, a...)) }
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			bad("want an object, got %T", v)
			return probs
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := s.Properties[k]
			if !ok && s.AdditionalProperties != nil {
				ps, ok = *s.AdditionalProperties, true
			}
			if !ok {
				bad("key %q is not in schema %s", k, s.ID)
				continue
			}
			probs = append(probs, checkAgainstSchema(d, ps, obj[k], at+"."+k)...)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			bad("want an array, got %T", v)
			return probs
		}
		for i, e := range arr {
			probs = append(probs, checkAgainstSchema(d, *s.Items, e, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("want a string, got %T", v)
			return probs
		}
		if s.Format == "uint64" {
			if _, err := strconv.ParseUint(str, 10, 64); err != nil {
				bad("format uint64, got %q", str)
			}
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			bad("%q is not one of %v", str, s.Enum)
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			bad("want an integer, got %T", v)
			return probs
		}
		if _, err := strconv.ParseInt(string(n), 10, 32); err != nil && s.Format == "int32" {
			bad("format int32, got %s", n)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("want a boolean, got %T", v)
		}
	default:
		bad("schema type %q not handled by the checker", s.Type)
	}
	return probs
}

// checkBody checks a raw answer both ways: against the discovery schema and
// by strict decoding into the generated SDK type.
func checkBody(t *testing.T, d discoveryDoc, schema string, body []byte, sdkValue any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: not JSON: %v", schema, err)
	}
	for _, p := range checkAgainstSchema(d, discoverySchema{Ref: schema}, v, schema) {
		t.Error(p)
	}
	strict := json.NewDecoder(bytes.NewReader(body))
	strict.DisallowUnknownFields()
	if err := strict.Decode(sdkValue); err != nil {
		t.Errorf("%s: the SDK type %T does not take the answer: %v\n%s", schema, sdkValue, err, body)
	}
}

// TestSchemaCheckerCatchesStrayFields shows the checker fails on what it is
// meant to catch, so a passing fidelity test means something.
func TestSchemaCheckerCatchesStrayFields(t *testing.T) {
	d := loadDiscovery(t)
	for _, c := range []struct{ body, want string }{
		{`{"kind":"dns#managedZone","name":"z","zoneType":"x"}`, `key "zoneType"`},
		{`{"id":12}`, "want a string"},
		{`{"id":"-1"}`, "format uint64"},
		{`{"visibility":"internal"}`, "not one of"},
		{`{"privateVisibilityConfig":{"networks":[{"url":"x"}]}}`, `key "url"`},
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(c.body)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		probs := checkAgainstSchema(d, discoverySchema{Ref: "ManagedZone"}, v, "ManagedZone")
		if len(probs) != 1 || !bytes.Contains([]byte(probs[0]), []byte(c.want)) {
			t.Errorf("%s: got %v, want one problem with %q", c.body, probs, c.want)
		}
	}
}
