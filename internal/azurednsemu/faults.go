package azurednsemu

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// Fault is an error injected on demand. It matches ARM calls by operation
// (Route.Op, e.g. "dns/RecordSets_CreateOrUpdate"), subscription, resource
// group and zone (empty matches all; names case-insensitive) and fires for
// Count requests, for Duration from when it is added, or (both zero) until
// cleared. Status defaults to 500. A 429 carries Retry-After (RetryAfter
// seconds, default the server's). Code and Message default to ARM-like
// values for the status.
type Fault struct {
	Operation     string        `json:"operation,omitempty"`
	Subscription  string        `json:"subscription,omitempty"`
	ResourceGroup string        `json:"resourceGroup,omitempty"`
	Zone          string        `json:"zone,omitempty"`
	Status        int           `json:"status,omitempty"`
	Code          string        `json:"code,omitempty"`
	Message       string        `json:"message,omitempty"`
	RetryAfter    int           `json:"retryAfter,omitempty"`
	Count         int           `json:"count,omitempty"`
	Duration      time.Duration `json:"-"` // the control API takes "duration":"30s"
	fired         int
	until         time.Time
}

// WriteFailure makes every write (PUT, PATCH, DELETE) of a record set named
// RecordName (relative, as in the path; and of RecordType, when set) in Zone
// (when set) fail after its own validation with Status (default 400), Code
// (default "BadRequest") and Message, leaving the zone unchanged. Count
// limits how many writes fail (0: until cleared).
type WriteFailure struct {
	Zone       string `json:"zone,omitempty"`
	RecordName string `json:"recordName"`
	RecordType string `json:"recordType,omitempty"`
	Status     int    `json:"status,omitempty"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
	Count      int    `json:"count,omitempty"`
	fired      int
}

type faultState struct {
	errs   []*Fault
	writes []*WriteFailure
}

// AddFault installs a fault; faults are checked in the order they were
// added, before the rate limit.
func (s *Server) AddFault(f Fault) error {
	if f.Status == 0 {
		f.Status = http.StatusInternalServerError
	}
	if f.Status < 400 || f.Status > 599 {
		return fmt.Errorf("fault status %d: want an HTTP error status (400–599)", f.Status)
	}
	if f.Count < 0 || f.Duration < 0 || f.RetryAfter < 0 {
		return fmt.Errorf("fault count, duration and retryAfter must not be negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Duration > 0 {
		f.until = s.now().Add(f.Duration)
	}
	s.faults.errs = append(s.faults.errs, &f)
	return nil
}

// FailWrites installs a write failure for a record set name.
func (s *Server) FailWrites(w WriteFailure) error {
	if w.RecordName == "" {
		return fmt.Errorf("write failure: recordName must be set (\"@\" is the apex)")
	}
	if w.Count < 0 {
		return fmt.Errorf("write failure: count must not be negative")
	}
	if w.Status == 0 {
		w.Status = http.StatusBadRequest
	}
	if w.Status < 400 || w.Status > 599 {
		return fmt.Errorf("write failure status %d: want an HTTP error status (400–599)", w.Status)
	}
	if w.Code == "" {
		w.Code = "BadRequest"
	}
	if w.Message == "" {
		w.Message = "Injected failure for record set " + w.RecordName + "."
	}
	w.RecordType = strings.ToUpper(w.RecordType)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.writes = append(s.faults.writes, &w)
	return nil
}

// ClearFaults removes every injected fault and write failure.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = faultState{}
}

// Faults lists the installed faults (Count is what is left, Duration the
// time left) and write failures.
func (s *Server) Faults() ([]Fault, []WriteFailure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireFaultsLocked()
	errs := make([]Fault, 0, len(s.faults.errs))
	for _, f := range s.faults.errs {
		c := *f
		if c.Count > 0 {
			c.Count -= c.fired
		}
		if !c.until.IsZero() {
			c.Duration = c.until.Sub(s.now())
		}
		c.fired, c.until = 0, time.Time{}
		errs = append(errs, c)
	}
	ws := make([]WriteFailure, 0, len(s.faults.writes))
	for _, w := range s.faults.writes {
		c := *w
		if c.Count > 0 {
			c.Count -= c.fired
		}
		c.fired = 0
		ws = append(ws, c)
	}
	return errs, ws
}

func (s *Server) expireFaultsLocked() {
	now := s.now()
	kept := s.faults.errs[:0]
	for _, f := range s.faults.errs {
		if (f.Count > 0 && f.fired >= f.Count) || (!f.until.IsZero() && !now.Before(f.until)) {
			continue
		}
		kept = append(kept, f)
	}
	s.faults.errs = kept
}

func (f *Fault) armError(defaultRetry int) *armError {
	code, msg := f.Code, f.Message
	switch {
	case f.Status == http.StatusTooManyRequests:
		code, msg = orString(code, "TooManyRequests"), orString(msg, "The request is being throttled (injected).")
	case f.Status >= 500:
		code, msg = orString(code, "InternalServerError"), orString(msg, "Encountered internal server error (injected).")
	default:
		code, msg = orString(code, "BadRequest"), orString(msg, "Injected fault.")
	}
	e := newErr(f.Status, code, msg)
	if f.Status == http.StatusTooManyRequests {
		e.retryAfter = f.RetryAfter
		if e.retryAfter == 0 {
			e.retryAfter = defaultRetry
		}
	}
	return e
}

// writeFailureLocked returns the injected failure for a record set write,
// counting it as fired.
func (s *Server) writeFailureLocked(z *zone, name, typ string) *armError {
	for i, w := range s.faults.writes {
		if (w.Zone != "" && !strings.EqualFold(strings.TrimSuffix(w.Zone, "."), z.name)) ||
			!strings.EqualFold(w.RecordName, name) || (w.RecordType != "" && w.RecordType != typ) {
			continue
		}
		w.fired++
		if w.Count > 0 && w.fired >= w.Count {
			s.faults.writes = append(s.faults.writes[:i:i], s.faults.writes[i+1:]...)
		}
		return newErr(w.Status, w.Code, w.Message)
	}
	return nil
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// tokenBucket is one subscription's request quota.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

// admitLocked applies injected faults and the per-subscription rate limit,
// in that order.
func (s *Server) admitLocked(op string, params map[string]string) *armError {
	s.expireFaultsLocked()
	sub := params["subscriptionId"]
	for _, f := range s.faults.errs {
		if (f.Operation != "" && f.Operation != op) || (f.Subscription != "" && !strings.EqualFold(f.Subscription, sub)) ||
			(f.ResourceGroup != "" && !strings.EqualFold(f.ResourceGroup, params["resourceGroupName"])) ||
			(f.Zone != "" && !strings.EqualFold(strings.TrimSuffix(f.Zone, "."), params["zoneName"]+params["privateZoneName"])) {
			continue
		}
		f.fired++
		return f.armError(s.opts.RetryAfter)
	}
	if s.opts.RateLimit > 0 && !s.takeTokenLocked(strings.ToLower(sub)) {
		e := newErr(http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
			fmt.Sprintf("Number of requests for subscription '%s' exceeded the limit (emulator: %g requests/s). Please try again after '%d' seconds.", sub, s.opts.RateLimit, s.opts.RetryAfter))
		e.retryAfter = s.opts.RetryAfter
		return e
	}
	return nil
}

func (s *Server) takeTokenLocked(sub string) bool {
	burst := float64(s.opts.Burst)
	if burst <= 0 {
		burst = math.Max(1, math.Ceil(s.opts.RateLimit))
	}
	now := s.now()
	b, ok := s.buckets[sub]
	if !ok {
		b = &tokenBucket{tokens: burst, last: now}
		s.buckets[sub] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*s.opts.RateLimit)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// SetRateLimit changes the per-subscription rate (requests per second; 0
// disables it), burst and Retry-After seconds (0 keeps the current one),
// and refills every bucket.
func (s *Server) SetRateLimit(perSecond float64, burst, retryAfter int) error {
	if perSecond < 0 || burst < 0 || retryAfter < 0 || math.IsNaN(perSecond) || math.IsInf(perSecond, 0) {
		return fmt.Errorf("rate limit: requestsPerSecond, burst and retryAfter must be finite and not negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.RateLimit, s.opts.Burst = perSecond, burst
	if retryAfter > 0 {
		s.opts.RetryAfter = retryAfter
	}
	s.buckets = map[string]*tokenBucket{}
	return nil
}
