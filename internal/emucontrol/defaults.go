package emucontrol

import (
	"fmt"
	"net/http"
)

// Or returns v, or def when v is the zero value: an injected failure that
// leaves a field empty gets the API's usual value.
func Or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// ErrorStatus returns status, or def when it is 0, and refuses anything that
// is not an HTTP error status, since an injected "failure" with a 2xx or 3xx
// status would confuse the client rather than test it. what names the
// failure in the message ("fault", "write failure").
func ErrorStatus(what string, status, def int) (int, error) {
	status = Or(status, def)
	if status < 400 || status > 599 {
		return 0, fmt.Errorf("%s status %d: want an HTTP error status (400–599)", what, status)
	}
	return status, nil
}

// Wording is an API's error code and message for one class of status.
type Wording[C comparable] struct {
	Code    C
	Message string
}

// WordingByStatus is how an API words an injected fault that names no code
// or message: throttling (429), server errors (5xx) and everything else get
// the code and message the API uses for that class. C is the API's code type
// (Cloudflare's codes are numbers, the others strings).
type WordingByStatus[C comparable] struct {
	Throttled, ServerError, Other Wording[C]
}

// Fill returns code and message, each replaced by the class's wording when
// empty.
func (w WordingByStatus[C]) Fill(status int, code C, message string) (C, string) {
	class := w.Other
	switch {
	case status == http.StatusTooManyRequests:
		class = w.Throttled
	case status >= 500:
		class = w.ServerError
	}
	return Or(code, class.Code), Or(message, class.Message)
}
