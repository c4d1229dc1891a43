package azurednsemu

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
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
}

type faultState struct {
	errs   emucontrol.FaultList[Fault]
	writes emucontrol.FaultList[WriteFailure]
}

// AddFault installs a fault; faults are checked in the order they were
// added, before the rate limit.
func (s *Server) AddFault(f Fault) error {
	var err error
	if f.Status, err = emucontrol.ErrorStatus("fault", f.Status, http.StatusInternalServerError); err != nil {
		return err
	}
	if f.Count < 0 || f.Duration < 0 || f.RetryAfter < 0 {
		return fmt.Errorf("fault count, duration and retryAfter must not be negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.errs.Add(f, f.Count, s.now(), f.Duration)
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
	var err error
	if w.Status, err = emucontrol.ErrorStatus("write failure", w.Status, http.StatusBadRequest); err != nil {
		return err
	}
	w.Code = emucontrol.Or(w.Code, "BadRequest")
	w.Message = emucontrol.Or(w.Message, "Injected failure for record set "+w.RecordName+".")
	w.RecordType = strings.ToUpper(w.RecordType)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.writes.Add(w, w.Count, s.now(), 0)
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
	now := s.now()
	return s.faults.errs.List(now, func(f *Fault, left int, remaining time.Duration) { f.Count, f.Duration = left, remaining }),
		s.faults.writes.List(now, func(w *WriteFailure, left int, _ time.Duration) { w.Count = left })
}

func (f *Fault) armError(defaultRetry int) *armError {
	code, msg := emucontrol.WordingByStatus[string]{
		Throttled:   emucontrol.Wording[string]{Code: "TooManyRequests", Message: "The request is being throttled (injected)."},
		ServerError: emucontrol.Wording[string]{Code: "InternalServerError", Message: "Encountered internal server error (injected)."},
		Other:       emucontrol.Wording[string]{Code: "BadRequest", Message: "Injected fault."},
	}.Fill(f.Status, f.Code, f.Message)
	e := newErr(f.Status, code, msg)
	if f.Status == http.StatusTooManyRequests {
		e.retryAfter = emucontrol.Or(f.RetryAfter, defaultRetry)
	}
	return e
}

// writeFailureLocked returns the injected failure for a record set write,
// counting it as fired.
func (s *Server) writeFailureLocked(z *zone, name, typ string) *armError {
	w, ok := s.faults.writes.Fire(s.now(), func(w *WriteFailure) bool {
		return (w.Zone == "" || strings.EqualFold(strings.TrimSuffix(w.Zone, "."), z.name)) &&
			strings.EqualFold(w.RecordName, name) && (w.RecordType == "" || w.RecordType == typ)
	})
	if !ok {
		return nil
	}
	return newErr(w.Status, w.Code, w.Message)
}

// admitLocked applies injected faults and the per-subscription rate limit,
// in that order.
func (s *Server) admitLocked(op string, params map[string]string) *armError {
	sub := params["subscriptionId"]
	if f, ok := s.faults.errs.Fire(s.now(), func(f *Fault) bool {
		return (f.Operation == "" || f.Operation == op) && (f.Subscription == "" || strings.EqualFold(f.Subscription, sub)) &&
			(f.ResourceGroup == "" || strings.EqualFold(f.ResourceGroup, params["resourceGroupName"])) &&
			(f.Zone == "" || strings.EqualFold(strings.TrimSuffix(f.Zone, "."), params["zoneName"]+params["privateZoneName"]))
	}); ok {
		return f.armError(s.opts.RetryAfter)
	}
	if _, ok := s.limiter.Take(s.now(), strings.ToLower(sub)); !ok {
		e := newErr(http.StatusTooManyRequests, "SubscriptionRequestsThrottled",
			fmt.Sprintf("Number of requests for subscription '%s' exceeded the limit (emulator: %g requests/s). Please try again after '%d' seconds.", sub, s.limiter.Rate(), s.opts.RetryAfter))
		e.retryAfter = s.opts.RetryAfter
		return e
	}
	return nil
}

// SetRateLimit changes the per-subscription rate (requests per second; 0
// disables it), burst and Retry-After seconds (0 keeps the current one),
// and refills every bucket.
func (s *Server) SetRateLimit(perSecond float64, burst, retryAfter int) error {
	if !emucontrol.ValidRate(perSecond) || burst < 0 || retryAfter < 0 {
		return fmt.Errorf("rate limit: requestsPerSecond, burst and retryAfter must be finite and not negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiter.Set(perSecond, burst)
	s.opts.RetryAfter = emucontrol.Or(retryAfter, s.opts.RetryAfter)
	return nil
}
