package cloudflareemu

import (
	"encoding/json"
	"net/http"
)

// envelope is Cloudflare's v4 response wrapper. Every API answer, success or
// not, has success, errors, messages and result; lists add result_info.
type envelope struct {
	Success    bool          `json:"success"`
	Errors     []errorDetail `json:"errors"`
	Messages   []errorDetail `json:"messages"`
	Result     any           `json:"result"`
	ResultInfo *resultInfo   `json:"result_info,omitempty"`
}

// errorDetail is one entry of errors or messages. Source.Pointer names the
// offending part of a batch ("/posts/3").
type errorDetail struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Source  *errorPointer `json:"source,omitempty"`
}

type errorPointer struct {
	Pointer string `json:"pointer"`
}

// resultInfo is the paging block of list answers.
type resultInfo struct {
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
	Count      int `json:"count"`
	TotalCount int `json:"total_count"`
	TotalPages int `json:"total_pages"`
}

// apiError is an API failure: the HTTP status and the envelope's errors.
type apiError struct {
	status     int
	errors     []errorDetail
	retryAfter string // Retry-After header value, for 429
}

func (e *apiError) Error() string {
	if len(e.errors) == 0 {
		return http.StatusText(e.status)
	}
	return e.errors[0].Message
}

// code is the first error code, for the call log and counters.
func (e *apiError) code() int {
	if len(e.errors) == 0 {
		return 0
	}
	return e.errors[0].Code
}

func newErr(status, code int, msg string) *apiError {
	return &apiError{status: status, errors: []errorDetail{{Code: code, Message: msg}}}
}

// withPointer sets the JSON pointer of every error, used for batch items.
func (e *apiError) withPointer(p string) *apiError {
	out := &apiError{status: e.status, retryAfter: e.retryAfter}
	for _, d := range e.errors {
		d.Source = &errorPointer{Pointer: p}
		out.errors = append(out.errors, d)
	}
	return out
}

func writeEnvelope(w http.ResponseWriter, status int, env envelope) {
	if env.Errors == nil {
		env.Errors = []errorDetail{}
	}
	if env.Messages == nil {
		env.Messages = []errorDetail{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(env)
}

func writeResult(w http.ResponseWriter, result any, info *resultInfo) {
	writeEnvelope(w, http.StatusOK, envelope{Success: true, Result: result, ResultInfo: info})
}

func writeError(w http.ResponseWriter, e *apiError) {
	if e.retryAfter != "" {
		w.Header().Set("Retry-After", e.retryAfter)
	}
	writeEnvelope(w, e.status, envelope{Success: false, Errors: e.errors, Result: nil})
}
