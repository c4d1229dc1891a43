// Package googlednsemu is a local emulator of the part of the Google Cloud
// DNS API v1 that DNS controllers use: managedZones list/get (public, private
// and peering zones), resourceRecordSets list, changes create/get, Google's
// JSON error envelope, per-project rate limit and the OAuth2 token endpoint a
// service-account key exchanges its JWT at. Its routes are the discovery
// document's (google.golang.org/api v0.274.0 dns/v1/dns-api.json, revision
// 20260219); every answer is decoded by the generated dns/v1 client in the
// package tests. See README.md for what is and is not emulated. A test-only
// control API lives under /_emulator/.
package googlednsemu

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// APIPrefix is the root of the emulated API; clients take the server's base
// URL plus "/" as their endpoint (option.WithEndpoint), because the
// generated client's paths already start with dns/v1/.
const APIPrefix = "/dns/v1/"

// TokenPath is the OAuth2 token endpoint; use <base URL>/token as token_uri
// in a service-account key file.
const TokenPath = "/token"

// Options configure a Server. The zero value serves with no rate limit and
// accepts only access tokens it issued at /token (plus StaticTokens).
type Options struct {
	// RateLimit is the request rate per project in requests per second;
	// above it requests fail with HTTP 429 rateLimitExceeded. Zero disables
	// it. Google does not publish a default for Cloud DNS (the quota is per
	// project and shown in the console), so it is a setting.
	RateLimit float64
	// Burst is the token bucket size; zero means max(1, ceil(RateLimit)).
	Burst int
	// StaticTokens are access tokens accepted without /token, with every
	// scope (for clients built with a static token source).
	StaticTokens []string
	// PageSize is the page length when a list call sets no maxResults;
	// zero means DefaultPageSize.
	PageSize int
	// Now replaces the clock (timestamps, token expiry, rate limit, faults).
	Now func() time.Time
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
}

// DefaultPageSize is the page length of list calls without maxResults (an
// emulator choice; Google documents that the server decides).
const DefaultPageSize = 1000

// Server is the emulator. It is an http.Handler; all state is in memory and
// guarded by one mutex, so requests are processed one at a time, which also
// makes every change trivially atomic.
type Server struct {
	mu      sync.Mutex
	opts    Options
	st      *state
	tokens  map[string]*accessToken
	faults  faultState
	limiter emucontrol.RateLimiter
	calls   emucontrol.CallLog[Call]
	log     *slog.Logger
}

// New returns an emulator with no projects and no zones.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log}
	s.limiter.Set(opts.RateLimit, opts.Burst)
	s.resetLocked()
	return s
}

func (s *Server) now() time.Time { return s.opts.Now().UTC() }

// ServeHTTP dispatches to the control API, the token endpoint or the Cloud
// DNS API. Every other path gets Google's error envelope with 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, controlPrefix):
		s.serveControl(w, r)
	case r.URL.Path == TokenPath:
		s.serveToken(w, r)
	default:
		s.serveAPI(w, r)
	}
}

// ListenAndServe serves on addr (e.g. "127.0.0.1:0") until ctx ends. ready,
// if not nil, receives the base URL (http://host:port) once the listener is
// bound.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(url string)) error {
	return emucontrol.ListenAndServe(ctx, addr, s, nil, ready)
}

// resetLocked drops projects, zones, issued tokens, faults and the call log.
// The rate limit setting is kept.
func (s *Server) resetLocked() {
	s.st = newState()
	s.tokens = map[string]*accessToken{}
	s.faults = faultState{}
	s.limiter.Refill()
	s.calls.Clear()
}

// Reset returns the emulator to an empty state.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetLocked()
}
