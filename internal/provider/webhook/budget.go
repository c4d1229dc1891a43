package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/logging"
	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

// A webhook provider is usually a sidecar on the same pod, so the client sends as fast as it is
// answered; it paces itself only once the server answers 429 (too many requests), typically because
// the DNS API behind the server throttles it.
const (
	// maxThrottleWait bounds how long one request waits in total for the server to stop answering
	// 429; the last 429 then fails the run, which the controller retries with backoff.
	maxThrottleWait = 2 * time.Minute
	// firstThrottlePause is the pause after a 429 without a usable Retry-After, doubling with each
	// 429 in a row up to maxThrottlePause.
	firstThrottlePause = time.Second
	maxThrottlePause   = 32 * time.Second
	// rateWindow is how far back the rate the server was taking is measured when its first 429
	// arrives: the bucket starts there (at least minPacedRate) and is halved by the 429. One second:
	// a 429 answers a burst, and the burst's rate is what the server could not take.
	rateWindow   = time.Second
	minPacedRate = 1.0
)

// throttle is the client's budget: no limit until a 429, then a pacing.Bucket (the token bucket every
// API provider shares, internal/pacing) started at the rate the server was taking, halved by each 429,
// paused for its Retry-After, recovering 2 % per answered request; once back at that rate it is
// dropped, and the client is unpaced again.
type throttle struct {
	metrics pacing.Metrics
	account string // the URL without credentials: the metrics' account label
	now     func() time.Time
	maxWait time.Duration // maxThrottleWait; shorter in tests

	mu     sync.Mutex
	bucket *pacing.Bucket
	sent   []time.Time // send times within rateWindow, while unpaced
	inARow int
	total  int // 429s answered
}

// Throttles is how many 429 answers the server gave.
func (t *throttle) Throttles() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// paced is the bucket in force, nil while unpaced.
func (t *throttle) paced() *pacing.Bucket {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bucket
}

// wait blocks until a request may go.
func (t *throttle) wait(ctx context.Context) error {
	if b := t.paced(); b != nil {
		return b.Wait(ctx)
	}
	t.mu.Lock()
	now := t.now()
	i := 0
	for i < len(t.sent) && now.Sub(t.sent[i]) > rateWindow {
		i++
	}
	t.sent = append(t.sent[i:], now)
	t.mu.Unlock()
	return nil
}

// throttled records a 429 with its Retry-After (0: none) and returns the pause it sets.
func (t *throttle) throttled(retryAfter time.Duration) time.Duration {
	t.mu.Lock()
	t.total++
	pause := retryAfter
	if pause <= 0 {
		pause = min(firstThrottlePause<<min(t.inARow, 6), maxThrottlePause)
	}
	t.inARow++
	if t.bucket == nil {
		t.bucket = pacing.New(max(minPacedRate, float64(len(t.sent))/rateWindow.Seconds()))
		if t.metrics != nil {
			t.bucket.OnRate(func(r float64) { t.metrics.APIRate("webhook", t.account, r) })
		}
		t.sent = nil
	}
	b := t.bucket
	t.mu.Unlock()
	b.Throttled(pause)
	return pause
}

// answered records an answer that was not a 429: the rate recovers, and the bucket goes once it is
// back at its maximum.
func (t *throttle) answered() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inARow = 0
	if t.bucket == nil {
		return
	}
	t.bucket.Succeeded()
	if t.bucket.Rate() >= t.bucket.Max() {
		t.bucket = nil
	}
}

// callOf names a request as the metrics do: negotiate, records.list, records.apply,
// adjustendpoints.
func (p *Provider) callOf(req *http.Request) string {
	rel := strings.Trim(strings.TrimPrefix(req.URL.Path, strings.TrimSuffix(p.base.Path, "/")), "/")
	switch {
	case rel == "":
		return "negotiate"
	case rel == strings.Trim(pathRecords, "/") && req.Method == http.MethodGet:
		return "records.list"
	case rel == strings.Trim(pathRecords, "/"):
		return "records.apply"
	case rel == strings.Trim(pathAdjust, "/"):
		return "adjustendpoints"
	}
	return req.Method + " /" + rel
}

// do sends a request through the throttle; the credentials of the URL authenticate it (basic auth)
// and are kept out of the error. A 429 is waited out (its Retry-After, or a backoff doubling from 1 s)
// and the request sent again, until maxThrottleWait is spent; the last 429 then goes back to the
// caller. Every attempt is counted in the metrics.
func (p *Provider) do(req *http.Request) (*http.Response, error) {
	call := p.callOf(req)
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		if attempt > 0 && req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, errors.New("cannot resend a request whose body cannot be read again")
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		if err := p.budget.wait(req.Context()); err != nil {
			return nil, err
		}
		resp, err := p.client.Do(req)
		throttled := err == nil && resp.StatusCode == http.StatusTooManyRequests
		if p.api != nil {
			p.api.APICall("webhook", "", call, throttled)
		}
		if err != nil {
			return nil, logging.RedactURLError(err)
		}
		if !throttled {
			p.budget.answered()
			return resp, nil
		}
		d := p.budget.throttled(pacing.RetryAfter(resp.Header.Get("Retry-After"), p.budget.now()))
		if waited+d > p.budget.maxWait {
			return resp, nil
		}
		waited += d // the bucket's pause holds the next attempt
		p.log.Info("The webhook provider asks to slow down (HTTP 429): pausing", "call", call, "pause", d.String())
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBodySize))
		_ = resp.Body.Close()
	}
}
