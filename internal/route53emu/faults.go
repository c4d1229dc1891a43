package route53emu

import (
	"math"
	"net/http"
	"time"
)

// Fault is an error injected on demand. It matches Route 53 calls by
// operation and zone (empty matches all) and fires Count times (0: until
// cleared). Known codes get AWS's status and message when those are left
// empty: Throttling, PriorRequestNotComplete, AccessDenied, InternalError,
// ServiceUnavailable.
type Fault struct {
	Operation string `json:"operation,omitempty"`
	ZoneID    string `json:"zoneId,omitempty"`
	Code      string `json:"code"`
	Status    int    `json:"status,omitempty"`
	Message   string `json:"message,omitempty"`
	Count     int    `json:"count,omitempty"`
	// RetryAfter, when set, is sent as the answer's Retry-After header (seconds or an HTTP date), as
	// an API that tells its clients how long to wait.
	RetryAfter string `json:"retryAfter,omitempty"`
	fired      int
}

// AddFault installs a fault; faults are checked in the order they were added.
func (s *Server) AddFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f.ZoneID = bareID(f.ZoneID)
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Faults lists the installed faults with how often each still fires.
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, 0, len(s.faults))
	for _, f := range s.faults {
		c := *f
		if c.Count > 0 {
			c.Count -= c.fired
		}
		c.fired = 0
		out = append(out, c)
	}
	return out
}

func (f *Fault) apiError(op, zoneID string, p principal) *apiError {
	status, msg := f.Status, f.Message
	switch f.Code {
	case "Throttling":
		status, msg = orInt(status, 400), orString(msg, msgThrottling)
	case "PriorRequestNotComplete":
		status, msg = orInt(status, 400), orString(msg, msgPriorRequest)
	case "AccessDenied":
		status, msg = orInt(status, http.StatusForbidden), orString(msg, accessDeniedMessage(p, op, zoneID))
	case "InternalError":
		status, msg = orInt(status, 500), orString(msg, "We encountered an internal error. Please try again.")
	case "ServiceUnavailable":
		status, msg = orInt(status, 503), orString(msg, "Service Unavailable")
	default:
		status, msg = orInt(status, 400), orString(msg, "Injected fault "+f.Code)
	}
	e := newErr(status, f.Code, msg)
	e.RetryAfter = f.RetryAfter
	return e
}

// accessDeniedMessage follows AWS's "User: <arn> is not authorized to perform:
// route53:<Op> on resource: <arn>" form.
func accessDeniedMessage(p principal, op, zoneID string) string {
	resource := "*"
	if zoneID != "" {
		resource = "arn:aws:route53:::hostedzone/" + zoneID
	}
	return "User: " + p.arn + " is not authorized to perform: route53:" + op + " on resource: " + resource
}

func orInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// tokenBucket is the per-account request quota.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

// admitLocked applies authentication, injected faults, the rate limit and the
// busy-zone rule, in that order.
func (s *Server) admitLocked(r *http.Request, req request, p principal) *apiError {
	if e := s.authenticateLocked(r, p); e != nil {
		return e
	}
	for i, f := range s.faults {
		if (f.Operation != "" && f.Operation != req.op) || (f.ZoneID != "" && f.ZoneID != req.zoneID) {
			continue
		}
		f.fired++
		if f.Count > 0 && f.fired >= f.Count {
			s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
		}
		return f.apiError(req.op, req.zoneID, p)
	}
	if s.opts.RateLimit > 0 && !s.takeTokenLocked(p.account) {
		return newErr(400, "Throttling", msgThrottling)
	}
	if s.opts.BusyWhilePending && req.op == "ChangeResourceRecordSets" {
		now := s.now()
		for _, c := range s.st.changes {
			if c.zoneID == req.zoneID && now.Before(c.insyncAt) {
				return newErr(400, "PriorRequestNotComplete", msgPriorRequest)
			}
		}
	}
	return nil
}

func (s *Server) takeTokenLocked(account string) bool {
	burst := float64(s.opts.Burst)
	if burst <= 0 {
		burst = math.Max(1, math.Ceil(s.opts.RateLimit))
	}
	now := s.now()
	b, ok := s.buckets[account]
	if !ok {
		b = &tokenBucket{tokens: burst, last: now}
		s.buckets[account] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*s.opts.RateLimit)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
