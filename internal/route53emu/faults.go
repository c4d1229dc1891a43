package route53emu

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// Fault is an error injected on demand. It matches Route 53 calls by
// operation and zone (empty matches all) and fires Count times (0: until
// cleared). Code is required; Status, when set, must be 400–599. Known codes
// get AWS's status and message when those are left empty: Throttling,
// PriorRequestNotComplete, AccessDenied, InternalError, ServiceUnavailable.
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
}

// AddFault installs a fault; faults are checked in the order they were
// added. It refuses a fault without a code, with a status that is not an
// HTTP error (a 2xx "fault" would reach the SDK as a success) or with a
// negative count, as the other emulators do.
func (s *Server) AddFault(f Fault) error {
	if f.Code == "" {
		return errors.New("field code is required (e.g. Throttling)")
	}
	if f.Status != 0 {
		if _, err := emucontrol.ErrorStatus("fault", f.Status, 0); err != nil {
			return err
		}
	}
	if f.Count < 0 {
		return fmt.Errorf("fault count %d: must not be negative", f.Count)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f.ZoneID = bareID(f.ZoneID)
	s.faults.Add(f, f.Count, s.now(), 0)
	return nil
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.Clear()
}

// Faults lists the installed faults with how often each still fires.
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults.List(s.now(), func(f *Fault, left int, _ time.Duration) { f.Count = left })
}

// fireFaultLocked returns the first installed fault match accepts as an
// AWS error, counting it as fired. op is the IAM action's name as the call
// log has it ("ChangeResourceRecordSets", "sts:AssumeRole") and resource the
// ARN an AccessDenied names ("" for "*").
func (s *Server) fireFaultLocked(match func(*Fault) bool, op, resource string, p principal) *apiError {
	f, ok := s.faults.Fire(s.now(), match)
	if !ok {
		return nil
	}
	return f.apiError(op, resource, p)
}

func (f *Fault) apiError(op, resource string, p principal) *apiError {
	status, msg := f.Status, f.Message
	switch f.Code {
	case "Throttling":
		status, msg = emucontrol.Or(status, 400), emucontrol.Or(msg, msgThrottling)
	case "PriorRequestNotComplete":
		status, msg = emucontrol.Or(status, 400), emucontrol.Or(msg, msgPriorRequest)
	case "AccessDenied":
		status, msg = emucontrol.Or(status, http.StatusForbidden), emucontrol.Or(msg, accessDeniedMessage(p, op, resource))
	case "InternalError":
		status, msg = emucontrol.Or(status, 500), emucontrol.Or(msg, "We encountered an internal error. Please try again.")
	case "ServiceUnavailable":
		status, msg = emucontrol.Or(status, 503), emucontrol.Or(msg, "Service Unavailable")
	default:
		status, msg = emucontrol.Or(status, 400), emucontrol.Or(msg, "Injected fault "+f.Code)
	}
	e := newErr(status, f.Code, msg)
	e.RetryAfter = f.RetryAfter
	return e
}

// accessDeniedMessage follows AWS's "User: <arn> is not authorized to perform:
// <service>:<Action> on resource: <arn>" form. Route 53 operations are bare
// names and get "route53:"; STS operations already read "sts:<Action>".
// AssumeRoleWithWebIdentity is unsigned, so STS names no user and words it
// as the emulator's own refusal of a subject does.
func accessDeniedMessage(p principal, op, resource string) string {
	if op == stsWebIdentityOp {
		return msgWebIdentityDenied
	}
	action := op
	if !strings.HasPrefix(op, "sts:") {
		action = "route53:" + op
	}
	return "User: " + p.arn + " is not authorized to perform: " + action + " on resource: " + emucontrol.Or(resource, "*")
}

// hostedZoneARN is the resource an AccessDenied on a zone names; "" (no
// zone) reads "*".
func hostedZoneARN(zoneID string) string {
	if zoneID == "" {
		return ""
	}
	return "arn:aws:route53:::hostedzone/" + zoneID
}

// admitLocked applies authentication, injected faults, the rate limit and the
// busy-zone rule, in that order.
func (s *Server) admitLocked(r *http.Request, req request, p principal) *apiError {
	if e := s.authenticateLocked(r, p); e != nil {
		return e
	}
	if e := s.fireFaultLocked(func(f *Fault) bool {
		return (f.Operation == "" || f.Operation == req.op) && (f.ZoneID == "" || f.ZoneID == req.zoneID)
	}, req.op, hostedZoneARN(req.zoneID), p); e != nil {
		return e
	}
	if _, ok := s.limiter.Take(s.now(), p.account); !ok {
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
