package googlednsemu

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// Fault is an error injected on demand. It matches API calls by operation
// (a discovery method id such as "dns.changes.create"), project and zone
// (empty matches all) and fires for Count requests, or for Duration from
// when it is added, or (both zero) until cleared. Status defaults to 500;
// Reason and Message default to Google-like values for the status.
type Fault struct {
	Operation string        `json:"operation,omitempty"`
	Project   string        `json:"project,omitempty"`
	Zone      string        `json:"zone,omitempty"`
	Status    int           `json:"status,omitempty"`
	Reason    string        `json:"reason,omitempty"`
	Message   string        `json:"message,omitempty"`
	Count     int           `json:"count,omitempty"`
	Duration  time.Duration `json:"-"` // the control API takes "duration":"30s"
	fired     int
	until     time.Time
}

// ChangeFailure makes every change touching a record set named RecordName
// (and of RecordType, when set) fail as a whole, after the change's own
// validation, with Status (default 400), Reason (default "invalid") and
// Message. Count limits how many changes fail (0: until cleared).
type ChangeFailure struct {
	Zone       string `json:"zone,omitempty"`
	RecordName string `json:"recordName"`
	RecordType string `json:"recordType,omitempty"`
	Status     int    `json:"status,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Message    string `json:"message,omitempty"`
	Count      int    `json:"count,omitempty"`
	fired      int
}

type faultState struct {
	errs    []*Fault
	changes []*ChangeFailure
}

// AddFault installs a fault; faults are checked in the order they were added,
// before the rate limit.
func (s *Server) AddFault(f Fault) error {
	if f.Status == 0 {
		f.Status = http.StatusInternalServerError
	}
	if f.Status < 400 || f.Status > 599 {
		return fmt.Errorf("fault status %d: want an HTTP error status (400–599)", f.Status)
	}
	if f.Count < 0 || f.Duration < 0 {
		return fmt.Errorf("fault count and duration must not be negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Duration > 0 {
		f.until = s.now().Add(f.Duration)
	}
	s.faults.errs = append(s.faults.errs, &f)
	return nil
}

// FailChanges installs a change failure for a record name.
func (s *Server) FailChanges(c ChangeFailure) error {
	name, ok := canonicalName(c.RecordName)
	if !ok {
		return fmt.Errorf("change failure: recordName %q is not a DNS name", c.RecordName)
	}
	if c.Count < 0 {
		return fmt.Errorf("change failure: count must not be negative")
	}
	if c.Status == 0 {
		c.Status = http.StatusBadRequest
	}
	if c.Status < 400 || c.Status > 599 {
		return fmt.Errorf("change failure status %d: want an HTTP error status (400–599)", c.Status)
	}
	if c.Reason == "" {
		c.Reason = "invalid"
	}
	if c.Message == "" {
		c.Message = "Injected failure for record set " + name
	}
	c.RecordName, c.RecordType = name, strings.ToUpper(c.RecordType)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.changes = append(s.faults.changes, &c)
	return nil
}

// ClearFaults removes every injected fault and change failure.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = faultState{}
}

// Faults lists the installed faults (Count is what is left, Duration the
// time left) and change failures.
func (s *Server) Faults() ([]Fault, []ChangeFailure) {
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
	chg := make([]ChangeFailure, 0, len(s.faults.changes))
	for _, c := range s.faults.changes {
		cc := *c
		if cc.Count > 0 {
			cc.Count -= cc.fired
		}
		cc.fired = 0
		chg = append(chg, cc)
	}
	return errs, chg
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

func (f *Fault) apiError() *apiError {
	reason, msg := f.Reason, f.Message
	switch {
	case f.Status == http.StatusTooManyRequests:
		reason, msg = orString(reason, "rateLimitExceeded"), orString(msg, "Rate limit exceeded (injected).")
	case f.Status >= 500:
		reason, msg = orString(reason, "backendError"), orString(msg, "Internal error encountered (injected).")
	default:
		reason, msg = orString(reason, "invalid"), orString(msg, "Injected fault.")
	}
	return newErr(f.Status, reason, msg)
}

// changeFailureLocked returns the injected failure for a change touching a
// chosen record set, counting it as fired.
func (s *Server) changeFailureLocked(z *zone, c *change) *apiError {
	for i, f := range s.faults.changes {
		if f.Zone != "" && f.Zone != z.name && f.Zone != formatID(z.id) {
			continue
		}
		hit := false
		for _, r := range append(append([]*rrset{}, c.deletions...), c.additions...) {
			hit = hit || (r.name == f.RecordName && (f.RecordType == "" || f.RecordType == r.typ))
		}
		if !hit {
			continue
		}
		f.fired++
		if f.Count > 0 && f.fired >= f.Count {
			s.faults.changes = append(s.faults.changes[:i:i], s.faults.changes[i+1:]...)
		}
		return newErr(f.Status, f.Reason, f.Message)
	}
	return nil
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// tokenBucket is one project's request quota.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

// admitLocked applies injected faults and the per-project rate limit, in
// that order.
func (s *Server) admitLocked(op string, params map[string]string) *apiError {
	s.expireFaultsLocked()
	project, zoneRef := params["project"], params["managedZone"]
	for _, f := range s.faults.errs {
		if (f.Operation != "" && f.Operation != op) || (f.Project != "" && f.Project != project) || (f.Zone != "" && f.Zone != zoneRef) {
			continue
		}
		f.fired++
		return f.apiError()
	}
	if s.opts.RateLimit > 0 && !s.takeTokenLocked(project) {
		return newErr(http.StatusTooManyRequests, "rateLimitExceeded",
			"Quota exceeded for quota metric 'API requests' and limit 'API requests per second' of service 'dns.googleapis.com' for consumer 'project:"+project+"' (emulator limit).")
	}
	return nil
}

// takeTokenLocked takes one token from the project's bucket.
func (s *Server) takeTokenLocked(project string) bool {
	burst := float64(s.opts.Burst)
	if burst <= 0 {
		burst = math.Max(1, math.Ceil(s.opts.RateLimit))
	}
	now := s.now()
	b, ok := s.buckets[project]
	if !ok {
		b = &tokenBucket{tokens: burst, last: now}
		s.buckets[project] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*s.opts.RateLimit)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// SetRateLimit changes the per-project rate (requests per second; 0
// disables it) and burst, and refills every bucket.
func (s *Server) SetRateLimit(perSecond float64, burst int) error {
	if perSecond < 0 || burst < 0 || math.IsNaN(perSecond) || math.IsInf(perSecond, 0) {
		return fmt.Errorf("rate limit: requestsPerSecond and burst must be finite and not negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.RateLimit, s.opts.Burst = perSecond, burst
	s.buckets = map[string]*tokenBucket{}
	return nil
}
