package cloudflareemu

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
)

// sdkProblems walks a value decoded by a Stainless-generated SDK (v5 or v7)
// and reports what the SDK's own metadata says is wrong with the JSON it
// read: keys the type does not know (JSON.ExtraFields, minus keys declared by
// the type or the types it embeds), fields whose JSON did not fit the Go type
// (Field.IsInvalid) and required fields that were absent (Field.IsMissing).
func sdkProblems(v any) []string {
	var out []string
	walkSDK(reflect.ValueOf(v), "$", nil, &out)
	sort.Strings(out)
	return out
}

var timeType = reflect.TypeOf(time.Time{})

func walkSDK(v reflect.Value, path string, outerKnown map[string]bool, out *[]string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkSDK(v.Elem(), path, nil, out)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkSDK(v.Index(i), fmt.Sprintf("%s[%d]", path, i), nil, out)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			walkSDK(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), nil, out)
		}
	case reflect.Struct:
		walkStruct(v, path, outerKnown, out)
	}
}

func walkStruct(v reflect.Value, path string, outerKnown map[string]bool, out *[]string) {
	t := v.Type()
	if t == timeType {
		return
	}
	known := knownKeys(t)
	for k := range outerKnown {
		known[k] = true
	}
	var meta reflect.Value
	if f, ok := t.FieldByName("JSON"); ok && len(f.Index) == 1 && f.Type.Kind() == reflect.Struct {
		meta = v.FieldByIndex(f.Index)
	}
	if meta.IsValid() {
		if extra := meta.FieldByName("ExtraFields"); extra.IsValid() && extra.Kind() == reflect.Map {
			for _, k := range extra.MapKeys() {
				if !known[k.String()] {
					raw := extra.MapIndex(k).MethodByName("Raw").Call(nil)[0].String()
					*out = append(*out, fmt.Sprintf("%s: field %q unknown to %s (value %s)", path, k.String(), t, raw))
				}
			}
		}
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "JSON" {
			continue
		}
		if f.Anonymous {
			// The embedded struct decoded the same object; keys of the outer
			// type are not extra for it.
			walkSDK(v.Field(i), path, known, out)
			continue
		}
		name, required, nullable := sdkTag(f)
		if name == "" {
			continue
		}
		if meta.IsValid() {
			if fm := meta.FieldByName(f.Name); fm.IsValid() && fm.Kind() == reflect.Struct {
				call := func(m string) bool { return fm.MethodByName(m).Call(nil)[0].Bool() }
				switch {
				case call("IsInvalid"):
					*out = append(*out, fmt.Sprintf("%s.%s: value %s does not fit %s", path, name, fm.MethodByName("Raw").Call(nil)[0].String(), f.Type))
				case required && call("IsMissing"):
					*out = append(*out, fmt.Sprintf("%s.%s: required field missing", path, name))
				case required && !nullable && call("IsNull"):
					*out = append(*out, fmt.Sprintf("%s.%s: required field is null", path, name))
				}
			}
		}
		walkSDK(v.Field(i), path+"."+name, nil, out)
	}
}

// knownKeys are the JSON keys a struct type declares, with those of the
// structs it embeds.
func knownKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k := range knownKeys(f.Type) {
				keys[k] = true
			}
			continue
		}
		if name, _, _ := sdkTag(f); name != "" {
			keys[name] = true
		}
	}
	return keys
}

// sdkTag reads the json name and the required/nullable markers, which v5
// writes as `json:"name,required"` and v7 as `api:"required,nullable"`.
func sdkTag(f reflect.StructField) (name string, required, nullable bool) {
	tag := f.Tag.Get("json")
	if tag == "" || tag == "-" {
		return "", false, false
	}
	parts := strings.Split(tag, ",")
	opts := append(parts[1:], strings.Split(f.Tag.Get("api"), ",")...)
	for _, o := range opts {
		required = required || o == "required"
		nullable = nullable || o == "nullable"
	}
	return parts[0], required, nullable
}

// bodyRecorder is SDK middleware that keeps every response body, so a test
// can decode the whole envelope (not only the result the SDK returns).
type bodyRecorder struct {
	mu     sync.Mutex
	bodies []recordedBody
}

type recordedBody struct {
	method, path string
	status       int
	body         []byte
}

func (b *bodyRecorder) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	resp, err := next(req)
	if err != nil {
		return resp, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	b.mu.Lock()
	b.bodies = append(b.bodies, recordedBody{req.Method, req.URL.Path, resp.StatusCode, raw})
	b.mu.Unlock()
	return resp, err
}

func (b *bodyRecorder) last() recordedBody {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.bodies) == 0 {
		return recordedBody{}
	}
	return b.bodies[len(b.bodies)-1]
}
