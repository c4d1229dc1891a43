// Package route53emu is a local emulator of the Amazon Route 53 API (rest-xml,
// version 2013-04-01) and of the two STS calls needed to obtain credentials
// (AssumeRoleWithWebIdentity for IRSA, AssumeRole). It reproduces the
// validation rules, error envelopes and exact messages listed in
// /work/shared/reference/route53-api.md so that a provider tested only against
// it behaves the same on real AWS. A test-only control API lives under
// /_emulator/, away from every AWS path.
package route53emu

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// DefaultAccountID is the account every static access key belongs to.
const DefaultAccountID = "123456789012"

// Options configure a Server. The zero value is a fast emulator for unit
// tests: no rate limit and changes INSYNC at once. DefaultOptions is the
// AWS-like configuration.
type Options struct {
	// RateLimit is the per-account request rate in requests per second over
	// all Route 53 operations; above it requests fail with Throttling. Zero
	// disables the limit. AWS's quota is 5.
	RateLimit float64
	// Burst is the token bucket size; zero means max(1, ceil(RateLimit)).
	Burst int
	// PropagationDelay is how long a change stays PENDING before GetChange
	// reports INSYNC. AWS generally needs under 60 s.
	PropagationDelay time.Duration
	// BusyWhilePending rejects ChangeResourceRecordSets with
	// PriorRequestNotComplete while an earlier change to the same zone is
	// still PENDING.
	BusyWhilePending bool
	// RejectReservedNames makes CreateHostedZone refuse example.com, .net and
	// .org as real AWS does ("… is reserved by AWS!").
	RejectReservedNames bool
	// AllowUnsigned accepts Route 53 requests without an AWS4-HMAC-SHA256
	// Authorization header. Signatures are never verified.
	AllowUnsigned bool
	// CheckAliasTargetsExist rejects aliases to ELB, CloudFront and Global
	// Accelerator names that were not registered with RegisterAliasTargets
	// ("but that target was not found").
	CheckAliasTargetsExist bool
	// AccountID is the account of static access keys; default DefaultAccountID.
	AccountID string
	// STS configures the STS endpoint.
	STS STSOptions
	// Now replaces the clock (propagation, rate limit, timestamps).
	Now func() time.Time
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
}

// DefaultOptions is the AWS-like configuration: 5 requests/s per account and
// a 1 s propagation delay.
func DefaultOptions() Options {
	return Options{RateLimit: 5, PropagationDelay: time.Second}
}

// Server is the emulator. It is an http.Handler; all state is in memory and
// guarded by one mutex, so requests are processed one at a time, which also
// makes every ChangeResourceRecordSets trivially atomic.
type Server struct {
	mu           sync.Mutex
	opts         Options
	st           *state
	faults       emucontrol.FaultList[Fault]
	limiter      emucontrol.RateLimiter
	calls        emucontrol.CallLog[Call]
	sessions     map[string]*stsSession // temporary access key id → session
	aliasTargets map[string]bool        // registered "existing" alias target names
	log          *slog.Logger
}

// New returns an emulator with empty state.
func New(opts Options) *Server {
	if opts.AccountID == "" {
		opts.AccountID = DefaultAccountID
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.STS.Audience == "" {
		opts.STS.Audience = "sts.amazonaws.com"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log}
	s.calls.Throttle = throttledAnswer
	s.limiter.Set(opts.RateLimit, opts.Burst)
	s.resetLocked()
	return s
}

func (s *Server) now() time.Time { return s.opts.Now() }

// ServeHTTP dispatches to the control API, the STS endpoint (POST /) or the
// Route 53 API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, controlPrefix):
		s.serveControl(w, r)
	case r.URL.Path == "/" || r.URL.Path == "":
		s.serveSTS(w, r)
	default:
		s.serveRoute53(w, r)
	}
}

// ListenAndServe serves on addr (e.g. "127.0.0.1:0") until ctx ends. ready,
// if not nil, receives the base URL once the listener is bound.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(url string)) error {
	return emucontrol.ListenAndServe(ctx, addr, s, nil, ready)
}

// resetLocked drops all zones, changes, tags, faults, sessions and the call
// log. Options set at runtime (rate, delay) are kept.
func (s *Server) resetLocked() {
	s.st = newState()
	s.faults.Clear()
	s.limiter.Refill()
	s.calls.Clear()
	s.sessions = map[string]*stsSession{}
	s.aliasTargets = map[string]bool{}
}

// Reset returns the emulator to an empty state.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetLocked()
}

// SetPropagationDelay changes the PENDING→INSYNC delay for later changes.
func (s *Server) SetPropagationDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.PropagationDelay = d
}

// SetRateLimit changes the per-account rate (0 disables) and burst.
func (s *Server) SetRateLimit(perSecond float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiter.Set(perSecond, burst)
}

// RegisterAliasTargets records ELB/CloudFront/Global Accelerator host names
// that "exist", for Options.CheckAliasTargetsExist.
func (s *Server) RegisterAliasTargets(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		s.aliasTargets[mustNormalize(n)] = true
	}
}
