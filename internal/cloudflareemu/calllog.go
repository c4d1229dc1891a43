package cloudflareemu

import (
	"net/http"
	"strconv"
	"time"
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
type Counters struct {
	Calls     map[string]int `json:"calls"`
	Errors    map[string]int `json:"errors"`
	Throttled int            `json:"throttled"`
	Total     int            `json:"total"`
}

func newCounters() Counters {
	return Counters{Calls: map[string]int{}, Errors: map[string]int{}}
}

// maxCalls bounds the call log so a long-running emulator cannot grow
// without limit; the oldest entries go first.
const maxCalls = 100000

func (s *Server) record(r *http.Request, op, zoneID string, status, code int) {
	retry, _ := strconv.Atoi(r.Header.Get("X-Stainless-Retry-Count"))
	c := Call{
		Time: s.now(), Operation: op, ZoneID: zoneID, Method: r.Method, Path: r.URL.Path,
		Query: r.URL.RawQuery, Retry: retry, Status: status, ErrorCode: code,
	}
	if len(s.calls) >= maxCalls {
		s.calls = append(s.calls[:0], s.calls[len(s.calls)-maxCalls+1:]...)
	}
	s.calls = append(s.calls, c)
	s.counters.Calls[op]++
	s.counters.Total++
	if code != 0 {
		s.counters.Errors[op+":"+strconv.Itoa(code)]++
	}
	if status == http.StatusTooManyRequests {
		s.counters.Throttled++
	}
	s.log.Debug("cloudflareemu call", "op", op, "zone", zoneID, "status", status, "code", code, "retry", retry)
}

// Calls returns a copy of the call log, oldest first.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Counters returns a copy of the counters.
func (s *Server) Counters() Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := newCounters()
	for k, v := range s.counters.Calls {
		out.Calls[k] = v
	}
	for k, v := range s.counters.Errors {
		out.Errors[k] = v
	}
	out.Throttled, out.Total = s.counters.Throttled, s.counters.Total
	return out
}

// ClearCalls empties the call log and counters, keeping all other state.
func (s *Server) ClearCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
	s.counters = newCounters()
}
