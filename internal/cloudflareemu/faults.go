package cloudflareemu

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
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
}

type faultState struct {
	errs  emucontrol.FaultList[Fault]
	batch emucontrol.FaultList[BatchFailure]
}

// AddFault installs a fault; faults are checked in the order they were added.
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

// FailBatches installs a batch failure for a record name.
func (s *Server) FailBatches(b BatchFailure) error {
	if b.RecordName == "" {
		return fmt.Errorf("batch failure: recordName is required")
	}
	if b.Count < 0 {
		return fmt.Errorf("batch failure: count must not be negative")
	}
	b.Code = emucontrol.Or(b.Code, CodeBatchFault)
	b.Message = emucontrol.Or(b.Message, "Injected failure for record "+b.RecordName)
	b.RecordName = strings.TrimSuffix(strings.ToLower(b.RecordName), ".")
	b.RecordType = strings.ToUpper(b.RecordType)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.batch.Add(b, b.Count, s.now(), 0)
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
	now := s.now()
	return s.faults.errs.List(now, func(f *Fault, left int, remaining time.Duration) { f.Count, f.Duration = left, remaining }),
		s.faults.batch.List(now, func(b *BatchFailure, left int, _ time.Duration) { b.Count = left })
}

func (f *Fault) apiError() *apiError {
	code, msg := emucontrol.WordingByStatus[int]{
		Throttled:   emucontrol.Wording[int]{Code: CodeRateLimited, Message: msgRateLimited},
		ServerError: emucontrol.Wording[int]{Code: CodeInternal, Message: "Internal server error (injected)"},
		Other:       emucontrol.Wording[int]{Code: 1000, Message: "Injected fault"},
	}.Fill(f.Status, f.Code, f.Message)
	e := newErr(f.Status, code, msg)
	if f.Status == http.StatusTooManyRequests {
		e.retryAfter = strconv.Itoa(emucontrol.Or(f.RetryAfter, 1))
	}
	return e
}

// batchFailureLocked returns the injected failure for a record touched by a
// request (single or batch), counting it as fired.
func (s *Server) batchFailureLocked(zoneID, name, typ string, single bool) *apiError {
	b, ok := s.faults.batch.Fire(s.now(), func(b *BatchFailure) bool {
		return (b.ZoneID == "" || b.ZoneID == zoneID) && b.RecordName == name && (b.RecordType == "" || b.RecordType == typ) &&
			(!single || b.IncludeSingle)
	})
	if !ok {
		return nil
	}
	return newErr(http.StatusBadRequest, b.Code, b.Message)
}

// admitLocked applies authentication, injected faults and the rate limit, in
// that order.
func (s *Server) admitLocked(r *http.Request, op, zoneID string, _ []byte) *apiError {
	cred, e := s.authenticate(r)
	if e != nil {
		return e
	}
	if f, ok := s.faults.errs.Fire(s.now(), func(f *Fault) bool {
		return (f.Operation == "" || f.Operation == op) && (f.ZoneID == "" || f.ZoneID == zoneID)
	}); ok {
		return f.apiError()
	}
	if wait, ok := s.limiter.Take(s.now(), cred); !ok {
		e := newErr(http.StatusTooManyRequests, CodeRateLimited, msgRateLimited)
		e.retryAfter = strconv.Itoa(int(math.Max(1, math.Ceil(wait.Seconds()))))
		return e
	}
	return nil
}

// SetRateLimit changes the per-credential rate (0 disables) and burst.
func (s *Server) SetRateLimit(perSecond float64, burst int) error {
	return s.SetRateLimitFor(perSecond, burst, 0)
}

// SetRateLimitFor applies a rate and burst for d (0: until changed), after
// which the setting in force before the call returns; e.g. throttle to 4
// requests per second for 60 s in the middle of a test. A setting made while
// the window runs wins: SetRateLimit ends the window for good, another timed
// one replaces it (emucontrol.RateLimiter.SetFor).
func (s *Server) SetRateLimitFor(perSecond float64, burst int, d time.Duration) error {
	if !emucontrol.ValidRate(perSecond) || burst < 0 || d < 0 {
		return fmt.Errorf("rate limit: requestsPerSecond, burst and duration must be finite and not negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiter.SetFor(s.now(), perSecond, burst, d)
	return nil
}
