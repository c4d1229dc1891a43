// Package cloudflareemu is a local emulator of the part of the Cloudflare v4
// API that DNS controllers use: zones, dns_records (with the batch endpoint),
// custom_hostnames and addressing/regional_hostnames, with Cloudflare's
// response envelope, error codes, record-type rules and rate limit. It is
// modelled on the official Go SDK (cloudflare-go v7.7.0 and v5.1.0), whose
// types decode every response the emulator writes; see README.md for what is
// and is not emulated. The API lives under /client/v4/ as in production; a
// test-only control API lives under /_emulator/.
package cloudflareemu

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// APIPrefix is the root of the emulated API. Point clients at
// <base URL>/client/v4/ (CLOUDFLARE_BASE_URL for cloudflare-go and
// external-dns).
const APIPrefix = "/client/v4/"

// DefaultAccountID is the account seeded zones belong to unless they name one.
const DefaultAccountID = "023e105f4ecef8ad9ca31a8372d0c353"

// Options configure a Server. The zero value is a fast emulator for unit
// tests: no rate limit and any API token accepted.
type Options struct {
	// RateLimit is the request rate per credential in requests per second;
	// above it requests fail with HTTP 429, a Retry-After header and error
	// code 10000. Zero disables the limit. Cloudflare documents 1200
	// requests per 5 minutes per user (DefaultRateLimit).
	RateLimit float64
	// Burst is the token bucket size; zero means max(1, ceil(RateLimit)).
	Burst int
	// APITokens, when not empty, are the only bearer tokens accepted; other
	// tokens get 401 with code 10000 "Authentication error". Empty accepts
	// any token (and any X-Auth-Key/X-Auth-Email pair).
	APITokens []string
	// Now replaces the clock (timestamps, rate limit, timed faults).
	Now func() time.Time
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
}

// DefaultRateLimit is Cloudflare's documented global API limit, 1200 requests
// per five minutes per user, as a rate.
const DefaultRateLimit = 1200.0 / 300.0

// Server is the emulator. It is an http.Handler; all state is in memory and
// guarded by one mutex, so requests are processed one at a time, which also
// makes every batch trivially one transaction.
type Server struct {
	mu      sync.Mutex
	opts    Options
	st      *state
	faults  faultState
	limiter emucontrol.RateLimiter
	calls   emucontrol.CallLog[Call]
	log     *slog.Logger
}

// New returns an emulator with no zones.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
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

// ServeHTTP dispatches to the control API or the Cloudflare API. Any other
// path gets Cloudflare's "No route for that URI" envelope.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, controlPrefix):
		s.serveControl(w, r)
	default:
		s.serveAPI(w, r)
	}
}

// ListenAndServe serves on addr (e.g. "127.0.0.1:0") until ctx ends. ready,
// if not nil, receives the base URL (http://host:port, without /client/v4/)
// once the listener is bound.
func (s *Server) ListenAndServe(ctx context.Context, addr string, ready func(url string)) error {
	return emucontrol.ListenAndServe(ctx, addr, s, nil, ready)
}

// resetLocked drops all zones, records, hostnames, faults and the call log.
// Options set at runtime (rate limit) are kept.
func (s *Server) resetLocked() {
	s.st = newState()
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
