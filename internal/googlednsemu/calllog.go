package googlednsemu

import (
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
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
type Counters = emucontrol.Counters

func (s *Server) record(r *http.Request, op string, params map[string]string, status int, reason string) {
	c := Call{Time: s.now(), Operation: op, Project: params["project"], Zone: params["managedZone"],
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, Reason: reason}
	s.calls.Add(c, op, status, reason)
	s.log.Debug("googlednsemu call", "op", op, "project", c.Project, "zone", c.Zone, "status", status, "reason", reason)
}

// Calls returns a copy of the call log, oldest first.
func (s *Server) Calls() []Call { return s.calls.Calls() }

// Counters returns a copy of the counters.
func (s *Server) Counters() Counters { return s.calls.Counters() }

// ClearCalls empties the call log and counters, keeping all other state.
func (s *Server) ClearCalls() { s.calls.Clear() }
