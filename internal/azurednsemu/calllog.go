package azurednsemu

import (
	"net/http"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
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
type Counters = emucontrol.Counters

func (s *Server) record(r *http.Request, op string, params map[string]string, status int, code string) {
	c := Call{Time: s.now(), Operation: op, Subscription: params["subscriptionId"], ResourceGroup: params["resourceGroupName"],
		Zone: params["zoneName"] + params["privateZoneName"], Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: status, Code: code}
	s.calls.Add(c, op, status, code)
	s.log.Debug("azurednsemu call", "op", op, "zone", c.Zone, "status", status, "code", code)
}

// Calls returns a copy of the call log, oldest first.
func (s *Server) Calls() []Call { return s.calls.Calls() }

// Counters returns a copy of the counters.
func (s *Server) Counters() Counters { return s.calls.Counters() }

// ClearCalls empties the call log and counters, keeping all other state.
func (s *Server) ClearCalls() { s.calls.Clear() }
