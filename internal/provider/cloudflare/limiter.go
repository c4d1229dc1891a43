package cloudflare

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/option"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

// maxThrottleWait bounds how long one request waits in total for the API to stop answering 429
// before it fails; the sync then fails softly and is retried with backoff, so a long throttle never
// holds the loop.
const maxThrottleWait = 2 * time.Minute

// defaultRetryAfter is the pause after a 429 without a usable Retry-After.
const defaultRetryAfter = time.Second

// accounts are the request budgets of the process, one per account (credentials and API endpoint),
// shared by every zone and provider instance that uses the account. Each draws from a pacing.Bucket
// of one pacing.Pool, the token bucket every API provider shares (internal/pacing,
// docs/api-budget.md). cloudflare-go v7 has no limiter of its own (only retries, switched off here),
// so nothing paces twice.
type accounts struct {
	mu        sync.Mutex
	perSecond float64
	pool      *pacing.Pool
	metrics   pacing.Metrics
	byID      map[string]*account
}

func newAccounts(perSecond float64, metrics pacing.Metrics) *accounts {
	if perSecond <= 0 {
		perSecond = DefaultRequestsPerSecond
	}
	return &accounts{perSecond: perSecond, pool: pacing.NewPool("cloudflare", metrics), metrics: metrics, byID: map[string]*account{}}
}

// get returns the budget of an account key (a hash of the credentials with the endpoint: it is a
// metric label, never the secret), made on first use.
func (as *accounts) get(id string) *account {
	as.mu.Lock()
	defer as.mu.Unlock()
	if a, ok := as.byID[id]; ok {
		return a
	}
	a := &account{max: as.perSecond, bucket: as.pool.Bucket(id, as.perSecond), metrics: as.metrics, now: time.Now,
		zoneNames: map[string]string{}}
	as.byID[id] = a
	return a
}

// account is the budget of one account: a pacing.Bucket that every attempt draws from, paused for
// the Retry-After of each 429 and slowed down by it (halved, down to a tenth), recovering by 2% of the
// maximum per success.
type account struct {
	max     float64
	bucket  *pacing.Bucket
	metrics pacing.Metrics
	now     func() time.Time

	mu sync.Mutex
	// pausedUntil mirrors the bucket's pause, so that a pause longer than a request may wait fails
	// the request at once instead of holding the loop.
	pausedUntil time.Time
	requests    int
	// zoneNames maps zone ids to names for the metrics' zone label (the API's paths carry ids).
	zoneNames map[string]string
}

// Throttles is how many 429 answers the account has had.
func (a *account) Throttles() int { return a.bucket.Throttles() }

// Requests is how many requests the account has sent, retries included.
func (a *account) Requests() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests
}

// nameZone records a zone's name for the metrics.
func (a *account) nameZone(id, name string) {
	a.mu.Lock()
	a.zoneNames[id] = name
	a.mu.Unlock()
}

// wait blocks until the account may send: after any pause, with a token. A pause longer than
// maxThrottleWait is not waited out: the request fails at once, so the loop is never held by it.
func (a *account) wait(ctx context.Context) error {
	a.mu.Lock()
	d := a.pausedUntil.Sub(a.now())
	a.mu.Unlock()
	if d > maxThrottleWait {
		return &throttledError{remaining: d}
	}
	return a.bucket.Wait(ctx)
}

// throttled records a 429 that asks for a pause of d.
func (a *account) throttled(d time.Duration) {
	a.mu.Lock()
	if until := a.now().Add(d); until.After(a.pausedUntil) {
		a.pausedUntil = until
	}
	a.mu.Unlock()
	a.bucket.Throttled(d)
}

// observe reports one attempt to the metrics: its zone (by name when known) and operation.
func (a *account) observe(req *http.Request, throttled bool) {
	if a.metrics == nil {
		return
	}
	zoneID, call := callOf(req)
	a.mu.Lock()
	zone := a.zoneNames[zoneID]
	a.mu.Unlock()
	if zone == "" {
		zone = zoneID
	}
	a.metrics.APICall("cloudflare", zone, call, throttled)
}

// callOf names a request's zone id (empty for calls about no zone) and operation as the SDK's
// services and methods are named (the emulator's call log uses the same names), from its method and
// path: …/zones[/{id}[/dns_records[/batch|/{record}]|/custom_hostnames[/{id}]|/addressing/regional_hostnames[/{host}]]].
func callOf(req *http.Request) (zoneID, call string) {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	i := -1
	for j, s := range segs {
		if s == "zones" {
			i = j
			break
		}
	}
	if i < 0 {
		return "", req.Method + " " + req.URL.Path
	}
	rest := segs[i+1:]
	if len(rest) == 0 {
		return "", "zones.list"
	}
	zoneID = rest[0]
	rest = rest[1:]
	if len(rest) > 0 && rest[0] == "addressing" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return zoneID, "zones.get"
	}
	service := rest[0]
	if len(rest) == 1 {
		if req.Method == http.MethodPost {
			return zoneID, service + ".new"
		}
		return zoneID, service + ".list"
	}
	if rest[1] == "batch" && req.Method == http.MethodPost {
		return zoneID, service + ".batch"
	}
	switch req.Method {
	case http.MethodPut:
		return zoneID, service + ".update"
	case http.MethodPatch:
		return zoneID, service + ".edit"
	case http.MethodDelete:
		return zoneID, service + ".delete"
	}
	return zoneID, service + ".get"
}

// maxFailureRetries is how many times a request is sent again after a 5xx answer or a transport
// error (the SDK's own default before v7 raised it to 10).
const maxFailureRetries = 2

// middleware sends every attempt of every request through the budget and does the retrying, in
// place of the SDK's (the client is built with no retries of its own). A 429 pauses the whole
// account for the Retry-After the API asks (every zone and instance of the account waits), and the
// request goes again, until maxThrottleWait is spent; the last 429 then goes back to the caller. A
// 5xx or a transport error is retried twice after 0.5 s and 1 s (or its Retry-After).
func (a *account) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	var waited time.Duration
	failures := 0
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if req.Body != nil && req.GetBody == nil {
				return nil, errors.New("cannot resend a request whose body cannot be read again")
			}
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				req.Body = body
			}
		}
		if err := a.wait(req.Context()); err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.requests++
		a.mu.Unlock()
		res, err := next(req)
		a.observe(req, err == nil && res.StatusCode == http.StatusTooManyRequests)
		var pause time.Duration
		switch {
		case err != nil:
			if req.Context().Err() != nil || failures >= maxFailureRetries {
				return nil, err
			}
			pause = backoff(failures)
			failures++
		case res.StatusCode == http.StatusTooManyRequests:
			d := retryAfter(res.Header, a.now())
			a.throttled(d)
			if waited+d > maxThrottleWait {
				return res, nil
			}
			waited += d // the bucket's pause holds the next attempt
		case res.StatusCode >= 500:
			if failures >= maxFailureRetries {
				return res, nil
			}
			pause = backoff(failures)
			if res.Header.Get("Retry-After") != "" {
				pause = min(retryAfter(res.Header, a.now()), maxThrottleWait)
			}
			failures++
		default:
			a.bucket.Succeeded()
			return res, nil
		}
		if res != nil {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
		}
		if pause > 0 {
			t := time.NewTimer(pause)
			select {
			case <-req.Context().Done():
				t.Stop()
				return nil, req.Context().Err()
			case <-t.C:
			}
		}
	}
}

// backoff is the pause before the n-th retry of a failure: 0.5 s, 1 s, 2 s, ...
func backoff(n int) time.Duration { return 500 * time.Millisecond << n }

// throttledError fails a request while the account is paused for longer than a request may wait.
type throttledError struct{ remaining time.Duration }

func (e *throttledError) Error() string {
	return "Cloudflare answered 429 (too many requests) and asked for a pause of another " + e.remaining.Round(time.Second).String() + "; the sync is retried later"
}

// maxRetryAfter caps a Retry-After, so a bogus value cannot pause the account for ever.
const maxRetryAfter = time.Hour

// retryAfter reads Retry-After-Ms, then Retry-After (seconds, or an HTTP date), as the SDK does;
// defaultRetryAfter when neither gives a usable pause.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		return min(time.Duration(ms*float64(time.Millisecond)), maxRetryAfter)
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return min(time.Duration(s*float64(time.Second)), maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return defaultRetryAfter
}
