package azurednsemu

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// armError is an error answer in ARM's CloudError envelope, the shape
// azcore's runtime.NewResponseError reads:
//
//	{"error":{"code":"PreconditionFailed","message":"…"}}
type armError struct {
	status     int
	code       string
	message    string
	retryAfter int // seconds, for 429
}

func newErr(status int, code, message string) *armError {
	return &armError{status: status, code: code, message: message}
}

func (e *armError) Error() string { return e.code + ": " + e.message }

func writeError(w http.ResponseWriter, e *armError) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("x-ms-failure-cause", "service")
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]map[string]string{"error": {"code": e.code, "message": e.message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}
