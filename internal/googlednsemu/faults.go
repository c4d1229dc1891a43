package googlednsemu

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
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
}

type faultState struct {
	errs    emucontrol.FaultList[Fault]
	changes emucontrol.FaultList[ChangeFailure]
}

// AddFault installs a fault; faults are checked in the order they were added,
// before the rate limit.
func (s *Server) AddFault(f Fault) error {
	var err error
	if f.Status, err = emucontrol.ErrorStatus("fault", f.Status, http.StatusInternalServerError); err != nil {
		return err
	}
	if f.Count < 0 || f.Duration < 0 {
		return fmt.Errorf("fault count and duration must not be negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.errs.Add(f, f.Count, s.now(), f.Duration)
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
	var err error
	if c.Status, err = emucontrol.ErrorStatus("change failure", c.Status, http.StatusBadRequest); err != nil {
		return err
	}
	c.Reason = emucontrol.Or(c.Reason, "invalid")
	c.Message = emucontrol.Or(c.Message, "Injected failure for record set "+name)
	c.RecordName, c.RecordType = name, strings.ToUpper(c.RecordType)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.changes.Add(c, c.Count, s.now(), 0)
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
	now := s.now()
	return s.faults.errs.List(now, func(f *Fault, left int, remaining time.Duration) { f.Count, f.Duration = left, remaining }),
		s.faults.changes.List(now, func(c *ChangeFailure, left int, _ time.Duration) { c.Count = left })
}

func (f *Fault) apiError() *apiError {
	reason, msg := emucontrol.WordingByStatus[string]{
		Throttled:   emucontrol.Wording[string]{Code: "rateLimitExceeded", Message: "Rate limit exceeded (injected)."},
		ServerError: emucontrol.Wording[string]{Code: "backendError", Message: "Internal error encountered (injected)."},
		Other:       emucontrol.Wording[string]{Code: "invalid", Message: "Injected fault."},
	}.Fill(f.Status, f.Reason, f.Message)
	return newErr(f.Status, reason, msg)
}

// changeFailureLocked returns the injected failure for a change touching a
// chosen record set, counting it as fired.
func (s *Server) changeFailureLocked(z *zone, c *change) *apiError {
	f, ok := s.faults.changes.Fire(s.now(), func(f *ChangeFailure) bool {
		if f.Zone != "" && f.Zone != z.name && f.Zone != formatID(z.id) {
			return false
		}
		for _, r := range append(append([]*rrset{}, c.deletions...), c.additions...) {
			if r.name == f.RecordName && (f.RecordType == "" || f.RecordType == r.typ) {
				return true
			}
		}
		return false
	})
	if !ok {
		return nil
	}
	return newErr(f.Status, f.Reason, f.Message)
}

// admitLocked applies injected faults and the per-project rate limit, in
// that order.
func (s *Server) admitLocked(op string, params map[string]string) *apiError {
	project, zoneRef := params["project"], params["managedZone"]
	if f, ok := s.faults.errs.Fire(s.now(), func(f *Fault) bool {
		return (f.Operation == "" || f.Operation == op) && (f.Project == "" || f.Project == project) && (f.Zone == "" || f.Zone == zoneRef)
	}); ok {
		return f.apiError()
	}
	if _, ok := s.limiter.Take(s.now(), project); !ok {
		return newErr(http.StatusTooManyRequests, "rateLimitExceeded",
			"Quota exceeded for quota metric 'API requests' and limit 'API requests per second' of service 'dns.googleapis.com' for consumer 'project:"+project+"' (emulator limit).")
	}
	return nil
}

// SetRateLimit changes the per-project rate (requests per second; 0
// disables it) and burst, and refills every bucket.
func (s *Server) SetRateLimit(perSecond float64, burst int) error {
	if !emucontrol.ValidRate(perSecond) || burst < 0 {
		return fmt.Errorf("rate limit: requestsPerSecond and burst must be finite and not negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiter.Set(perSecond, burst)
	return nil
}
