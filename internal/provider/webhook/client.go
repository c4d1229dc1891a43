package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/logging"
	"github.com/zonekeeper/zonekeeper/internal/pacing"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Config configures the client, with external-dns's flags.
type Config struct {
	// URL is --webhook-provider-url (default http://localhost:8888).
	URL string
	// ReadTimeout and WriteTimeout are --webhook-provider-read-timeout (5s) and
	// --webhook-provider-write-timeout (10s); a request may take their sum, as in external-dns.
	ReadTimeout, WriteTimeout time.Duration
	// NegotiateAttempts bounds the tries of one negotiation when the server is unreachable or answers
	// 5xx (external-dns: 5); zero means 5.
	NegotiateAttempts int
	// NegotiateBackoff is the wait before the second try, doubled for each further one; zero means
	// 500 ms.
	NegotiateBackoff time.Duration
	// Metrics counts requests and errors per call; nil counts nothing.
	Metrics Metrics
	// APIMetrics counts every attempt and 429 in the providers' API budget metrics
	// (zonekeeper_provider_api_calls_total, _throttles_total, _rate); nil counts nothing.
	APIMetrics pacing.Metrics
	Logger     *slog.Logger
}

// Metrics receives external-dns's webhook client counters: call is records, applychanges or
// adjustendpoints.
type Metrics interface {
	WebhookRequest(call string)
	WebhookError(call string)
}

// Provider is the webhook client: a provider.Provider whose records live behind a webhook provider.
//
// Unlike external-dns's client, it never ends the process: an unreachable server or a failed
// negotiation fails the run, which the controller retries with backoff (and /readyz reports), and the
// negotiation is repeated until it succeeds. A POST /records that the server refuses is split, record
// and ownership TXT together, until the refused changes are isolated; each is reported with the
// server's answer while the others are applied.
type Provider struct {
	base    *url.URL
	shown   string // base without its credentials, for logs and errors
	client  *http.Client
	cfg     Config
	log     *slog.Logger
	metrics Metrics
	api     pacing.Metrics
	budget  *throttle

	mu         sync.Mutex
	negotiated bool
	filter     plan.DomainFilter
	// noAdjust is set when the server does not implement /adjustendpoints (404, 405 or 501).
	noAdjust bool
}

// New checks the configuration; it does not contact the server (the first run negotiates).
func New(cfg Config) (*Provider, error) {
	if cfg.URL == "" {
		cfg.URL = "http://localhost:8888"
	}
	shown := logging.RedactURL(cfg.URL)
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("--webhook-provider-url %q: %v", shown, logging.RedactURLError(err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--webhook-provider-url %q: want http://HOST:PORT or https://HOST:PORT", shown)
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 5 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.NegotiateAttempts <= 0 {
		cfg.NegotiateAttempts = 5
	}
	if cfg.NegotiateBackoff <= 0 {
		cfg.NegotiateBackoff = 500 * time.Millisecond
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Provider{
		base:    u,
		shown:   shown,
		client:  &http.Client{Timeout: cfg.ReadTimeout + cfg.WriteTimeout},
		cfg:     cfg,
		log:     log,
		metrics: cfg.Metrics,
		api:     cfg.APIMetrics,
		budget:  &throttle{metrics: cfg.APIMetrics, account: shown, now: time.Now, maxWait: maxThrottleWait},
	}, nil
}

// Capabilities are unknown until the server is asked, and the protocol has no way to ask: the client
// passes every record type external-dns knows and lets the server refuse what it cannot store.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
			endpoint.RecordTypeSRV, endpoint.RecordTypeMX, endpoint.RecordTypeNS, endpoint.RecordTypeNAPTR,
			endpoint.RecordTypePTR, endpoint.RecordTypeCAA, endpoint.RecordTypeDNAME, endpoint.RecordTypeTLSA,
		},
		SetIdentifier: true,
		Wildcards:     true,
		DefaultTTL:    300,
	}
}

// DomainFilter returns the filter the server negotiated, negotiating first if that has not succeeded
// yet. The controller plans only names that both this filter and the flags select, as external-dns
// does.
func (p *Provider) DomainFilter(ctx context.Context) (plan.DomainFilter, error) {
	p.mu.Lock()
	if p.negotiated {
		defer p.mu.Unlock()
		return p.filter, nil
	}
	p.mu.Unlock()
	df, err := p.negotiate(ctx)
	if err != nil {
		return plan.DomainFilter{}, err
	}
	p.mu.Lock()
	p.negotiated, p.filter = true, df
	p.mu.Unlock()
	p.log.Info("Negotiated with the webhook provider", "url", p.shown,
		"include", df.Filters(), "exclude", df.Excludes(), "regexInclude", df.Regex(), "regexExclude", df.RegexExclusion())
	return df, nil
}

// Invalidate makes the next run negotiate again. The registry calls it at every --interval resync, so a
// sidecar restarted with other domains is followed within one interval (external-dns negotiates only
// at start).
func (p *Provider) Invalidate() {
	p.mu.Lock()
	p.negotiated = false
	p.noAdjust = false // a restarted or upgraded sidecar may adjust endpoints now
	p.mu.Unlock()
}

// negotiate is GET / with the media type, retried with backoff while the server is unreachable or
// answers 5xx (a sidecar that is still starting).
func (p *Provider) negotiate(ctx context.Context) (plan.DomainFilter, error) {
	wait := p.cfg.NegotiateBackoff
	var last error
	for attempt := 1; ; attempt++ {
		df, retry, err := p.negotiateOnce(ctx)
		if err == nil {
			return df, nil
		}
		last = err
		if !retry || attempt == p.cfg.NegotiateAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return plan.DomainFilter{}, fmt.Errorf("webhook provider %s: negotiation: %w (last: %v)", p.shown, ctx.Err(), last)
		case <-time.After(wait):
		}
		wait *= 2
	}
	return plan.DomainFilter{}, fmt.Errorf("webhook provider %s: negotiation: %w", p.shown, last)
}

func (p *Provider) negotiateOnce(ctx context.Context) (df plan.DomainFilter, retry bool, err error) {
	req, err := p.request(ctx, http.MethodGet, p.base.String(), nil)
	if err != nil {
		return df, false, err
	}
	req.Header.Set("Accept", MediaType)
	resp, err := p.do(req)
	if err != nil {
		return df, true, err
	}
	defer drain(resp)
	body, err := readBody(resp)
	if err != nil {
		return df, true, err
	}
	if resp.StatusCode >= 500 {
		return df, true, statusError(resp, body)
	}
	if resp.StatusCode != http.StatusOK {
		return df, false, statusError(resp, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != MediaType {
		return df, false, fmt.Errorf("the server answered Content-Type %q, want %q: is the URL a webhook provider?", ct, MediaType)
	}
	df, err = decodeDomainFilter(body)
	return df, false, err
}

// Records is GET /records.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	const call = "records"
	p.requested(call)
	var eps []*endpoint.Endpoint
	status, err := p.exchange(ctx, http.MethodGet, pathRecords, nil, &eps)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("GET %s: HTTP %d, want 200", pathRecords, status)
	}
	if err != nil {
		p.failed(call)
		return nil, fmt.Errorf("webhook provider %s: %w", p.shown, err)
	}
	out := eps[:0]
	for _, e := range eps {
		if e == nil || e.DNSName == "" || e.RecordType == "" {
			p.log.Warn("Ignoring a record the webhook provider listed without a name or type", "record", fmt.Sprint(e))
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// AdjustEndpoints is POST /adjustendpoints. A server that does not implement it (404, 405, 501) is
// not asked again, and the endpoints are planned as the sources gave them.
func (p *Provider) AdjustEndpoints(ctx context.Context, desired []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	const call = "adjustendpoints"
	p.mu.Lock()
	skip := p.noAdjust
	p.mu.Unlock()
	if skip || len(desired) == 0 {
		return desired, nil
	}
	p.requested(call)
	var out []*endpoint.Endpoint
	status, err := p.exchange(ctx, http.MethodPost, pathAdjust, desired, &out)
	switch {
	case err == nil && status == http.StatusOK:
		return out, nil
	case err == nil && (status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented):
		p.mu.Lock()
		p.noAdjust = true
		p.mu.Unlock()
		p.log.Info("The webhook provider does not adjust endpoints; planning them as the sources give them", "status", status)
		return desired, nil
	case err == nil:
		err = fmt.Errorf("POST %s: HTTP %d, want 200", pathAdjust, status)
	}
	p.failed(call)
	return nil, fmt.Errorf("webhook provider %s: %w", p.shown, err)
}

// exchange sends a request with the media type and decodes a 200 answer into out. A status other
// than 200 is returned without error when the body is small; transport failures are errors.
func (p *Provider) exchange(ctx context.Context, method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := p.request(ctx, method, p.base.JoinPath(path).String(), body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", MediaType)
	if in != nil {
		req.Header.Set("Content-Type", MediaType)
	}
	resp, err := p.do(req)
	if err != nil {
		return 0, err
	}
	defer drain(resp)
	b, err := readBody(resp)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented {
			return resp.StatusCode, nil
		}
		return resp.StatusCode, statusError(resp, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: the answer is not the expected JSON: %v", method, path, err)
	}
	return resp.StatusCode, nil
}

// request is http.NewRequestWithContext with the credentials kept out of its error.
func (p *Provider) request(ctx context.Context, method, target string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	return req, logging.RedactURLError(err)
}

// requested and failed feed external-dns's webhook client counters.
func (p *Provider) requested(call string) {
	if p.metrics != nil {
		p.metrics.WebhookRequest(call)
	}
}

func (p *Provider) failed(call string) {
	if p.metrics != nil {
		p.metrics.WebhookError(call)
	}
}

// readBody reads at most MaxBodySize bytes.
func readBody(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodySize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBodySize {
		return nil, fmt.Errorf("the answer is larger than %d bytes", MaxBodySize)
	}
	return b, nil
}

// drain lets the connection be reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBodySize))
	resp.Body.Close()
}

// statusError describes a failed answer with the start of its body, which is where webhook providers
// put their reason.
func statusError(resp *http.Response, body []byte) error {
	msg := strings.TrimSpace(string(body))
	if len(msg) > 512 {
		msg = msg[:512] + "…"
	}
	if msg == "" {
		return &httpError{status: resp.StatusCode, msg: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	return &httpError{status: resp.StatusCode, msg: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, msg)}
}

// httpError is an answer with a failure status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// outage reports whether err means the server, or what is behind it, cannot take any request now,
// rather than that it refused this body: transport errors and timeouts; 401 (credentials), 405 (not a
// webhook provider at that URL), 408 and 429 (slow down), 502, 503 and 504. Splitting a batch cannot
// help then. A bare 500, a 403 or a 404 stays a refusal: external-dns's own server answers every
// failure with 500, and third-party ones answer 403 or 404 for one record ("zone not found") as well
// as for all of them; the split budget bounds what an outage costs.
func outage(err error) bool {
	var he *httpError
	if !errors.As(err, &he) {
		return true
	}
	switch he.status {
	case http.StatusUnauthorized, http.StatusMethodNotAllowed,
		http.StatusRequestTimeout, http.StatusTooManyRequests,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}
