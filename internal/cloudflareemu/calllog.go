package cloudflareemu

import (
	"net/http"
	"strconv"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// Call is one entry of the call log: every API request, including refused,
// throttled and unrouted ones, so tests can count SDK retries.
type Call struct {
	Time      time.Time `json:"time"`
	Operation string    `json:"operation"`
	ZoneID    string    `json:"zoneId,omitempty"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Query     string    `json:"query,omitempty"`
	Retry     int       `json:"retry,omitempty"` // X-Stainless-Retry-Count, 0 on a first attempt
	Status    int       `json:"status"`
	ErrorCode int       `json:"errorCode,omitempty"`
}

// Counters count calls per operation, errors per "operation:code" and the
// number of 429 answers.
type Counters = emucontrol.Counters

func (s *Server) record(r *http.Request, op, zoneID string, status, code int) {
	retry, _ := strconv.Atoi(r.Header.Get("X-Stainless-Retry-Count"))
	errCode := ""
	if code != 0 {
		errCode = strconv.Itoa(code)
	}
	s.calls.Add(Call{
		Time: s.now(), Operation: op, ZoneID: zoneID, Method: r.Method, Path: r.URL.Path,
		Query: r.URL.RawQuery, Retry: retry, Status: status, ErrorCode: code,
	}, op, status, errCode)
	s.log.Debug("cloudflareemu call", "op", op, "zone", zoneID, "status", status, "code", code, "retry", retry)
}

// Calls returns a copy of the call log, oldest first.
func (s *Server) Calls() []Call { return s.calls.Calls() }

// Counters returns a copy of the counters.
func (s *Server) Counters() Counters { return s.calls.Counters() }

// ClearCalls empties the call log and counters, keeping all other state.
func (s *Server) ClearCalls() { s.calls.Clear() }
