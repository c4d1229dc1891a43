package emucontrol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Prefix is the root of every emulator's test-only control API; no emulated
// provider has a path starting with it.
const Prefix = "/_emulator/"

// Routes map "METHOD path" (path relative to Prefix, e.g. "POST faults") to
// their handlers.
type Routes map[string]func(*Exchange)

// Decoder decodes a control request body into v; its error text follows
// "control API <path>: " in the answer. Emulators that answer their own API
// with strict decoding use the same rules for the control API.
type Decoder func(path string, body []byte, v any) error

// DecodeJSON is the Decoder of emulators whose own API has no strict wording
// to reuse. A field the control call does not have is refused by name, so a
// misspelt "stauts" is an error rather than a fault with the default status;
// other errors read as json.Unmarshal words them.
func DecodeJSON(_ string, body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return errors.New("unknown field " + field)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("unexpected end of JSON input")
		}
		return &bodyError{err}
	}
	if rest := bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return &bodyError{fmt.Errorf("invalid character %q after top-level value", rest[0])}
	}
	return nil
}

type bodyError struct{ err error }

func (e *bodyError) Error() string { return "invalid JSON body: " + e.err.Error() }

// Exchange is one control request and its answer.
type Exchange struct {
	W    http.ResponseWriter
	R    *http.Request
	Path string // relative to Prefix
	Body []byte
	dec  Decoder
}

// Serve reads the body (at most maxBody bytes) of a request under Prefix and
// runs its route; an unknown route gets 404.
func Serve(w http.ResponseWriter, r *http.Request, maxBody int64, dec Decoder, routes Routes) {
	path := strings.TrimPrefix(r.URL.Path, Prefix)
	x := &Exchange{W: w, R: r, Path: path, dec: dec}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		x.Fail(http.StatusBadRequest, err.Error())
		return
	}
	x.Body = body
	handle, ok := routes[r.Method+" "+path]
	if !ok {
		x.Fail(http.StatusNotFound, "control API: no route "+r.Method+" "+r.URL.Path)
		return
	}
	handle(x)
}

// Decode decodes the body into v, or answers 400 and reports false.
func (x *Exchange) Decode(v any) bool {
	if err := x.dec(x.Path, x.Body, v); err != nil {
		x.Invalid(err.Error())
		return false
	}
	return true
}

// Reply answers 200 with v as JSON.
func (x *Exchange) Reply(v any) {
	x.W.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(x.W).Encode(v)
}

// Fail answers status with {"error": msg}.
func (x *Exchange) Fail(status int, msg string) {
	x.W.Header().Set("Content-Type", "application/json")
	x.W.WriteHeader(status)
	_ = json.NewEncoder(x.W).Encode(map[string]string{"error": msg})
}

// Invalid answers 400 with msg after "control API <path>: ", so the message
// says which control call was wrong.
func (x *Exchange) Invalid(msg string) {
	x.Fail(http.StatusBadRequest, "control API "+x.Path+": "+msg)
}

// PositiveDuration parses value, the JSON field field, as a positive Go
// duration; empty is 0.
func PositiveDuration(field, value string) (time.Duration, error) {
	if value == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("field %s: want a positive Go duration such as \"60s\", got %s", field, value)
	}
	return d, nil
}

// Setting is a route that decodes a T, applies it and echoes it back, like
// PUT rate-limit; an error from apply is a 400 naming the control call.
func Setting[T any](apply func(T) error) func(*Exchange) {
	return func(x *Exchange) {
		var in T
		if !x.Decode(&in) {
			return
		}
		if err := apply(in); err != nil {
			x.Invalid(err.Error())
			return
		}
		x.Reply(in)
	}
}

// Adding is a route that decodes a T, adds it and answers with list (the
// emulator's list of what is installed), like POST faults; an error from
// add is a 400 naming the control call.
func Adding[T any](add func(T) error, list func(*Exchange)) func(*Exchange) {
	return func(x *Exchange) {
		var in T
		if !x.Decode(&in) {
			return
		}
		if err := add(in); err != nil {
			x.Invalid(err.Error())
			return
		}
		list(x)
	}
}

// Seeding is the POST seed route: it decodes an S, seeds it and answers with
// what seed returns. Seed errors are answered as they are, because they
// already name the zone or record at fault.
func Seeding[S, Z any](seed func(S) (Z, error)) func(*Exchange) {
	return func(x *Exchange) {
		var in S
		if !x.Decode(&in) {
			return
		}
		out, err := seed(in)
		if err != nil {
			x.Fail(http.StatusBadRequest, err.Error())
			return
		}
		x.Reply(out)
	}
}

// Logged is what every emulator's call log and reset offer the control API.
type Logged[C, N any] interface {
	Reset()
	Calls() []C
	ClearCalls()
	Counters() N
}

// Basic returns the routes every emulator has: POST reset, GET and DELETE
// calls, GET counters.
func Basic[C, N any](s Logged[C, N]) Routes {
	return Routes{
		"POST reset": func(x *Exchange) {
			s.Reset()
			x.Reply(map[string]string{"status": "reset"})
		},
		"GET calls": func(x *Exchange) { x.Reply(s.Calls()) },
		"DELETE calls": func(x *Exchange) {
			s.ClearCalls()
			x.Reply(map[string]string{"status": "cleared"})
		},
		"GET counters": func(x *Exchange) { x.Reply(s.Counters()) },
	}
}

// Add copies more routes in and returns rs, so an emulator can write its
// own routes next to the basic ones.
func (rs Routes) Add(more Routes) Routes {
	for k, v := range more {
		rs[k] = v
	}
	return rs
}
