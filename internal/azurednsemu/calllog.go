package azurednsemu

import (
	"net/http"
	"time"
)

// Call is one entry of the call log: every request to ARM and to the
// Entra ID endpoints, including refused, throttled and unrouted ones.
type Call struct {
	Time          time.Time `json:"time"`
	Operation     string    `json:"operation"`
	Subscription  string    `json:"subscription,omitempty"`
	ResourceGroup string    `json:"resourceGroup,omitempty"`
	Zone          string    `json:"zone,omitempty"`
	Method        string    `json:"method"`
	Path          string    `json:"path"`
	Query         string    `json:"query,omitempty"`
	Status        int       `json:"status"`
	Code          string    `json:"code,omitempty"`
}

// Counters count calls per operation, errors per "operation:code" and
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

func (s *Server) record(r *http.Request, op string, params map[string]string, status int, code string) {
	c := Call{Time: s.now(), Operation: op, Subscription: params["subscriptionId"], ResourceGroup: params["resourceGroupName"],
		Zone: params["zoneName"] + params["privateZoneName"], Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, Code: code}
	if len(s.calls) >= maxCalls {
		s.calls = append(s.calls[:0], s.calls[len(s.calls)-maxCalls+1:]...)
	}
	s.calls = append(s.calls, c)
	s.counter.Calls[op]++
	s.counter.Total++
	if code != "" {
		s.counter.Errors[op+":"+code]++
	}
	if status == http.StatusTooManyRequests {
		s.counter.Throttled++
	}
	s.log.Debug("azurednsemu call", "op", op, "zone", c.Zone, "status", status, "code", code)
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
