package googlednsemu

import (
	"net/http"
	"time"
)

// Call is one entry of the call log: every request to the API and the token
// endpoint, including refused, throttled and unrouted ones.
type Call struct {
	Time      time.Time `json:"time"`
	Operation string    `json:"operation"`
	Project   string    `json:"project,omitempty"`
	Zone      string    `json:"zone,omitempty"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	Query     string    `json:"query,omitempty"`
	Status    int       `json:"status"`
	Reason    string    `json:"reason,omitempty"`
}

// Counters count calls per operation, errors per "operation:reason" and
// the number of 429 answers.
type Counters struct {
	Calls     map[string]int `json:"calls"`
	Errors    map[string]int `json:"errors"`
	Throttled int            `json:"throttled"`
	Total     int            `json:"total"`
}

func newCounters() Counters { return Counters{Calls: map[string]int{}, Errors: map[string]int{}} }

// maxCalls bounds the call log; the oldest entries go first.
const maxCalls = 100000

func (s *Server) record(r *http.Request, op string, params map[string]string, status int, reason string) {
	c := Call{Time: s.now(), Operation: op, Project: params["project"], Zone: params["managedZone"],
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, Reason: reason}
	if len(s.calls) >= maxCalls {
		s.calls = append(s.calls[:0], s.calls[len(s.calls)-maxCalls+1:]...)
	}
	s.calls = append(s.calls, c)
	s.counter.Calls[op]++
	s.counter.Total++
	if reason != "" {
		s.counter.Errors[op+":"+reason]++
	}
	if status == http.StatusTooManyRequests {
		s.counter.Throttled++
	}
	s.log.Debug("googlednsemu call", "op", op, "project", c.Project, "zone", c.Zone, "status", status, "reason", reason)
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
	for k, v := range s.counter.Calls {
		out.Calls[k] = v
	}
	for k, v := range s.counter.Errors {
		out.Errors[k] = v
	}
	out.Throttled, out.Total = s.counter.Throttled, s.counter.Total
	return out
}

// ClearCalls empties the call log and counters, keeping all other state.
func (s *Server) ClearCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
	s.counter = newCounters()
}
