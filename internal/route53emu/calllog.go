package route53emu

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// Call is one entry of the call log: every Route 53 and STS request,
// including rejected and throttled ones, so tests can count SDK retries.
type Call struct {
	Time        time.Time `json:"time"`
	RequestID   string    `json:"requestId"`
	Operation   string    `json:"operation"`
	ZoneID      string    `json:"zoneId,omitempty"`
	Method      string    `json:"method"`
	Path        string    `json:"path"`
	Query       string    `json:"query,omitempty"`
	Attempt     int       `json:"attempt,omitempty"` // from Amz-Sdk-Request, 0 if absent
	AccessKeyID string    `json:"accessKeyId,omitempty"`
	Status      int       `json:"status"`
	ErrorCode   string    `json:"errorCode,omitempty"`
}

// Counters count calls per operation, errors per "Operation:Code", the
// answers that told the client to slow down (throttledAnswer) and all calls.
type Counters = emucontrol.Counters

// throttledAnswer tells which answers count as throttled: Route 53 says
// "slow down" with 400 Throttling (the rate limit) and PriorRequestNotComplete
// (a busy zone), the two the SDK and zonekeeper's limiter back off on, and an
// injected fault may still use 429.
func throttledAnswer(status int, code string) bool {
	return code == "Throttling" || code == "PriorRequestNotComplete" || status == http.StatusTooManyRequests
}

func (s *Server) record(r *http.Request, req request, requestID string, status int, code, accessKey string) {
	c := Call{
		Time:        s.now(),
		RequestID:   requestID,
		Operation:   req.op,
		ZoneID:      req.zoneID,
		Method:      r.Method,
		Path:        r.URL.Path,
		Query:       r.URL.RawQuery,
		Attempt:     sdkAttempt(r.Header.Get("Amz-Sdk-Request")),
		AccessKeyID: accessKey,
		Status:      status,
		ErrorCode:   code,
	}
	s.calls.Add(c, req.op, status, code)
	s.log.Debug("route53emu call", "op", req.op, "zone", req.zoneID, "status", status, "code", code, "attempt", c.Attempt)
}

// sdkAttempt reads N from "attempt=N; max=M".
func sdkAttempt(h string) int {
	for _, part := range strings.Split(h, ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "attempt="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// Calls returns a copy of the call log, oldest first.
func (s *Server) Calls() []Call { return s.calls.Calls() }

// Counters returns a copy of the counters.
func (s *Server) Counters() Counters { return s.calls.Counters() }

// ClearCalls empties the call log and counters, keeping all other state.
func (s *Server) ClearCalls() { s.calls.Clear() }
