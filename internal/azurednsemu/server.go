// Package azurednsemu is a local emulator of the part of Azure Resource
// Manager that DNS controllers use: Azure DNS (Microsoft.Network/dnszones,
// api-version 2018-05-01) and Azure Private DNS
// (Microsoft.Network/privateDnsZones, api-version 2024-06-01) zones, record
// sets and virtual network links, with etags, nextLink paging, the ARM error
// envelope, throttling, and the Entra ID (AAD) endpoints a client-secret login
// goes through. Its routes are the operations of the official swagger files
// (testdata/ holds the facts taken from them, with their commits); every
// answer is decoded by the armdns and armprivatedns clients in the package
// tests. See README.md for what is and is not emulated. A test-only control
// API lives under /_emulator/.
package azurednsemu

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// API versions the emulator serves; any other api-version is refused as ARM
// refuses an unregistered one.
const (
	DNSAPIVersion        = "2018-05-01"
	PrivateDNSAPIVersion = "2024-06-01"
)

// DefaultPageSize is the page length of list calls, the "up to 100" the
// swagger gives for calls without $top.
const DefaultPageSize = 100

// Credential is an application registration the token endpoint accepts for
// the client-credentials grant.
type Credential struct {
	TenantID     string `json:"tenantId"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
}

// Options configure a Server. The zero value serves with no rate limit,
// pages of DefaultPageSize and no registered application (so only static
// tokens are accepted until AddCredential).
type Options struct {
	// PageSize is the longest page a list call returns; $top can only
	// shorten it. Zero means DefaultPageSize. Set it low to force paging.
	PageSize int
	// RateLimit is the request rate per subscription in requests per
	// second (ARM throttles per subscription); above it requests fail with
	// HTTP 429 and Retry-After. Zero disables it.
	RateLimit float64
	// Burst is the token bucket size; zero means max(1, ceil(RateLimit)).
	Burst int
	// RetryAfter is the Retry-After value (seconds) of 429 answers; zero
	// means 1.
	RetryAfter int
	// Credentials are the applications the token endpoint accepts.
	Credentials []Credential
	// StaticTokens are bearer tokens ARM calls accept without a login.
	StaticTokens []string
	// Now replaces the clock (token expiry, rate limit, faults).
	Now func() time.Time
	// Logger receives one debug line per request; nil discards.
	Logger *slog.Logger
}

// Server is the emulator, an http.Handler. All state is in memory behind one
// mutex, so requests are handled one at a time and every write is atomic.
type Server struct {
	mu      sync.Mutex
	opts    Options
	st      *state
	creds   []Credential
	tokens  map[string]time.Time
	faults  faultState
	limiter emucontrol.RateLimiter
	calls   emucontrol.CallLog[Call]
	log     *slog.Logger
}

// New returns an emulator with no subscriptions and no zones.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = 1
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

// ServeHTTP dispatches to the control API, the Entra ID endpoints or ARM.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasPrefix(r.URL.Path, controlPrefix):
		s.serveControl(w, r)
	case isAADPath(r.URL.Path):
		s.serveAAD(w, r)
	default:
		s.serveARM(w, r)
	}
}

// ListenAndServe serves on addr (e.g. "127.0.0.1:0") until ctx ends, over
// TLS when tlsConfig is not nil (azidentity and the ARM bearer policy
// refuse plain http). ready, if not nil, receives the base URL
// (https://host:port) once the listener is bound.
func (s *Server) ListenAndServe(ctx context.Context, addr string, tlsConfig *tls.Config, ready func(url string)) error {
	return emucontrol.ListenAndServe(ctx, addr, s, tlsConfig, ready)
}

// resetLocked drops subscriptions, zones, tokens, faults and the call log;
// registered credentials and the rate limit setting stay.
func (s *Server) resetLocked() {
	s.st = newState()
	s.tokens = map[string]time.Time{}
	s.faults = faultState{}
	s.limiter.Refill()
	s.calls.Clear()
	if s.creds == nil {
		s.creds = append([]Credential(nil), s.opts.Credentials...)
	}
}

// Reset returns the emulator to an empty state (credentials stay).
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetLocked()
}
