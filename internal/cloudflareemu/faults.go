package cloudflareemu

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault is an error injected on demand. It matches API calls by operation and
// zone (empty matches all) and fires for Count requests, or for Duration from
// when it is added, or (both zero) until cleared. Status defaults to 500;
// Code and Message default to Cloudflare-like values for the status (429
// gets code 10000 and a Retry-After header).
type Fault struct {
	Operation  string        `json:"operation,omitempty"`
	ZoneID     string        `json:"zoneId,omitempty"`
	Status     int           `json:"status,omitempty"`
	Code       int           `json:"code,omitempty"`
	Message    string        `json:"message,omitempty"`
	Count      int           `json:"count,omitempty"`
	Duration   time.Duration `json:"-"`                    // the control API takes "duration":"30s"
	RetryAfter int           `json:"retryAfter,omitempty"` // seconds, for 429; default 1
	fired      int
	until      time.Time
}

// BatchFailure makes every batch that touches a record named RecordName (and
// of RecordType, when set) fail as a whole with Code and Message, the way a
// record Cloudflare refuses fails its batch. With IncludeSingle the
// single-record endpoints refuse the record too. Count limits how many
// requests fail (0: until cleared).
type BatchFailure struct {
	ZoneID        string `json:"zoneId,omitempty"`
	RecordName    string `json:"recordName"`
	RecordType    string `json:"recordType,omitempty"`
	Code          int    `json:"code,omitempty"`
	Message       string `json:"message,omitempty"`
	IncludeSingle bool   `json:"includeSingle,omitempty"`
	Count         int    `json:"count,omitempty"`
	fired         int
}

type faultState struct {
	errs  []*Fault
	batch []*BatchFailure
}

// AddFault installs a fault; faults are checked in the order they were added.
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

// FailBatches installs a batch failure for a record name.
func (s *Server) FailBatches(b BatchFailure) error {
	if b.RecordName == "" {
		return fmt.Errorf("batch failure: recordName is required")
	}
	if b.Count < 0 {
		return fmt.Errorf("batch failure: count must not be negative")
	}
	if b.Code == 0 {
		b.Code = CodeBatchFault
	}
	if b.Message == "" {
		b.Message = "Injected failure for record " + b.RecordName
	}
	b.RecordName = strings.TrimSuffix(strings.ToLower(b.RecordName), ".")
	b.RecordType = strings.ToUpper(b.RecordType)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.batch = append(s.faults.batch, &b)
	return nil
}

// ClearFaults removes every injected fault and batch failure.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = faultState{}
}

// Faults lists the installed faults (with how many requests each still
// fails) and batch failures.
func (s *Server) Faults() ([]Fault, []BatchFailure) {
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
	batch := make([]BatchFailure, 0, len(s.faults.batch))
	for _, b := range s.faults.batch {
		c := *b
		if c.Count > 0 {
			c.Count -= c.fired
		}
		c.fired = 0
		batch = append(batch, c)
	}
	return errs, batch
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
	code, msg := f.Code, f.Message
	e := &apiError{status: f.Status}
	switch {
	case f.Status == http.StatusTooManyRequests:
		code, msg = orInt(code, CodeRateLimited), orString(msg, msgRateLimited)
		e.retryAfter = strconv.Itoa(orInt(f.RetryAfter, 1))
	case f.Status >= 500:
		code, msg = orInt(code, CodeInternal), orString(msg, "Internal server error (injected)")
	default:
		code, msg = orInt(code, 1000), orString(msg, "Injected fault")
	}
	e.errors = []errorDetail{{Code: code, Message: msg}}
	return e
}

// batchFailureLocked returns the injected failure for a record touched by a
// request (single or batch), counting it as fired.
func (s *Server) batchFailureLocked(zoneID, name, typ string, single bool) *apiError {
	for i, b := range s.faults.batch {
		if (b.ZoneID != "" && b.ZoneID != zoneID) || b.RecordName != name || (b.RecordType != "" && b.RecordType != typ) {
			continue
		}
		if single && !b.IncludeSingle {
			continue
		}
		b.fired++
		if b.Count > 0 && b.fired >= b.Count {
			s.faults.batch = append(s.faults.batch[:i:i], s.faults.batch[i+1:]...)
		}
		return newErr(http.StatusBadRequest, b.Code, b.Message)
	}
	return nil
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

// tokenBucket is the per-credential request quota.
type tokenBucket struct {
	tokens float64
	last   time.Time
}

// admitLocked applies authentication, injected faults and the rate limit, in
// that order.
func (s *Server) admitLocked(r *http.Request, op, zoneID string, _ []byte) *apiError {
	cred, e := s.authenticate(r)
	if e != nil {
		return e
	}
	s.expireFaultsLocked()
	for _, f := range s.faults.errs {
		if (f.Operation != "" && f.Operation != op) || (f.ZoneID != "" && f.ZoneID != zoneID) {
			continue
		}
		f.fired++
		return f.apiError()
	}
	s.restoreRateLocked()
	if s.opts.RateLimit > 0 {
		if wait, ok := s.takeTokenLocked(cred); !ok {
			e := newErr(http.StatusTooManyRequests, CodeRateLimited, msgRateLimited)
			e.retryAfter = strconv.Itoa(int(math.Max(1, math.Ceil(wait.Seconds()))))
			return e
		}
	}
	return nil
}

// takeTokenLocked takes one token, or reports how long until one is free.
func (s *Server) takeTokenLocked(cred string) (time.Duration, bool) {
	burst := float64(s.opts.Burst)
	if burst <= 0 {
		burst = math.Max(1, math.Ceil(s.opts.RateLimit))
	}
	now := s.now()
	b, ok := s.buckets[cred]
	if !ok {
		b = &tokenBucket{tokens: burst, last: now}
		s.buckets[cred] = b
	}
	b.tokens = math.Min(burst, b.tokens+now.Sub(b.last).Seconds()*s.opts.RateLimit)
	b.last = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / s.opts.RateLimit * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

// SetRateLimit changes the per-credential rate (0 disables) and burst.
func (s *Server) SetRateLimit(perSecond float64, burst int) error {
	return s.SetRateLimitFor(perSecond, burst, 0)
}

// SetRateLimitFor applies a rate and burst for d (0: until changed), after
// which the setting in force before the call returns; e.g. throttle to 4
// requests per second for 60 s in the middle of a test.
func (s *Server) SetRateLimitFor(perSecond float64, burst int, d time.Duration) error {
	if perSecond < 0 || burst < 0 || d < 0 || math.IsNaN(perSecond) || math.IsInf(perSecond, 0) {
		return fmt.Errorf("rate limit: requestsPerSecond, burst and duration must be finite and not negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restoreRateLocked()
	if d > 0 {
		s.rateWindow = &rateWindow{until: s.now().Add(d), rate: s.opts.RateLimit, burst: s.opts.Burst}
	}
	s.opts.RateLimit = perSecond
	s.opts.Burst = burst
	s.buckets = map[string]*tokenBucket{}
	return nil
}

// rateWindow remembers the setting a timed rate limit replaced.
type rateWindow struct {
	until time.Time
	rate  float64
	burst int
}

// restoreRateLocked ends an expired timed rate limit.
func (s *Server) restoreRateLocked() {
	if s.rateWindow == nil || s.now().Before(s.rateWindow.until) {
		return
	}
	s.opts.RateLimit, s.opts.Burst = s.rateWindow.rate, s.rateWindow.burst
	s.rateWindow = nil
	s.buckets = map[string]*tokenBucket{}
}
