package googlednsemu

import (
	"encoding/json"
	"net/http"
)

// apiError is an error answer in Google's JSON error envelope, the shape
// googleapi.CheckResponse parses:
//
//	{"error":{"code":412,"message":"…","errors":[{"message":"…","domain":"global","reason":"conditionNotMet"}],"status":"FAILED_PRECONDITION"}}
type apiError struct {
	status  int
	reason  string
	message string
	domain  string // default "global"
}

func newErr(status int, reason, message string) *apiError {
	return &apiError{status: status, reason: reason, message: message}
}

func (e *apiError) Error() string { return e.reason + ": " + e.message }

// grpcStatus is the canonical status name Google puts beside each HTTP code.
func grpcStatus(code int) string {
	switch code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ALREADY_EXISTS"
	case http.StatusPreconditionFailed:
		return "FAILED_PRECONDITION"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}

type errorItem struct {
	Message string `json:"message"`
	Domain  string `json:"domain"`
	Reason  string `json:"reason"`
}

type errorBody struct {
	Code    int         `json:"code"`
	Message string      `json:"message"`
	Errors  []errorItem `json:"errors"`
	Status  string      `json:"status"`
}

func writeError(w http.ResponseWriter, e *apiError) {
	domain := e.domain
	if domain == "" {
		domain = "global"
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]errorBody{"error": {
		Code: e.status, Message: e.message, Status: grpcStatus(e.status),
		Errors: []errorItem{{Message: e.message, Domain: domain, Reason: e.reason}},
	}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(v)
}
