package google

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

// maxThrottleWait bounds how long one request waits in total for the API to stop answering 429
// before the 429 goes back to the caller; the sync then fails softly and is retried with backoff, so
// a long throttle never holds the loop.
const maxThrottleWait = 2 * time.Minute

// Backoff after a 429 (Cloud DNS sends no Retry-After): doubling from firstThrottlePause up to
// maxThrottlePause, as Google's documentation asks of clients (truncated exponential backoff).
const (
	firstThrottlePause = time.Second
	maxThrottlePause   = 32 * time.Second
)

// maxFailureRetries is how many times a request is sent again after a 5xx answer or a transport
// error.
const maxFailureRetries = 2

// budgets are the request budgets of the process, one per project (and API endpoint), shared by every
// zone and provider instance that uses the project. Each draws from a pacing.Bucket of one
// pacing.Pool, the token bucket every API provider shares (internal/pacing, docs/api-budget.md).
type budgets struct {
	mu        sync.Mutex
	perSecond float64
	pool      *pacing.Pool
	metrics   pacing.Metrics
	byID      map[string]*budget
}

func newBudgets(perSecond float64, metrics pacing.Metrics) *budgets {
	if perSecond <= 0 {
		perSecond = DefaultRequestsPerSecond
	}
	return &budgets{perSecond: perSecond, pool: pacing.NewPool("google", metrics), metrics: metrics, byID: map[string]*budget{}}
}

// get returns the budget of an account key (project and endpoint; no secret: it is a metric label),
// made on first use.
func (bs *budgets) get(id string) *budget {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b, ok := bs.byID[id]; ok {
		return b
	}
	b := &budget{max: bs.perSecond, bucket: bs.pool.Bucket(id, bs.perSecond), metrics: bs.metrics, sleep: sleepCtx}
	bs.byID[id] = b
	return b
}

// budget is the request budget of one project: a pacing.Bucket every attempt draws from. A 429
// pauses the whole project (every zone and instance) for a backoff that doubles with each 429 in a row
// (Cloud DNS sends no Retry-After, so the pause is the bucket's Retry-After), and halves the rate (down
// to a tenth); each other answer resets the backoff and recovers 2% of the rate.
type budget struct {
	max     float64
	bucket  *pacing.Bucket
	metrics pacing.Metrics
	sleep   func(context.Context, time.Duration) error

	mu       sync.Mutex
	inARow   int
	requests int
}

// Throttles is how many 429 answers the project has had.
func (b *budget) Throttles() int { return b.bucket.Throttles() }

// Requests is how many requests the project has sent, retries included.
func (b *budget) Requests() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.requests
}

// wait blocks until the project may send: after any pause, with a token.
func (b *budget) wait(ctx context.Context) error { return b.bucket.Wait(ctx) }

// throttled records a 429 and returns the pause it sets.
func (b *budget) throttled() time.Duration {
	b.mu.Lock()
	d := min(firstThrottlePause<<min(b.inARow, 6), maxThrottlePause)
	b.inARow++
	b.mu.Unlock()
	b.bucket.Throttled(d)
	return d
}

// answered records an answer that was not a 429.
func (b *budget) answered() {
	b.mu.Lock()
	b.inARow = 0
	b.mu.Unlock()
	b.bucket.Succeeded()
}

// observe reports one attempt to the metrics: its zone and operation, read from the request's path.
func (b *budget) observe(req *http.Request, throttled bool) {
	if b.metrics == nil {
		return
	}
	zone, call := callOf(req)
	b.metrics.APICall("google", zone, call, throttled)
}

// callOf names a request's zone (empty for calls about no zone) and operation as the discovery
// document does, from its method and path (…/managedZones[/{zone}[/rrsets|/changes[/{id}]]]).
func callOf(req *http.Request) (zone, call string) {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	i := slices.Index(segs, "managedZones")
	if i < 0 {
		return "", req.Method + " " + req.URL.Path
	}
	rest := segs[i+1:]
	if len(rest) > 0 {
		zone = rest[0]
	}
	switch {
	case len(rest) == 0:
		return "", "managedZones.list"
	case len(rest) == 1:
		return zone, "managedZones.get"
	case rest[1] == "rrsets":
		return zone, "resourceRecordSets.list"
	case rest[1] == "changes" && req.Method == http.MethodPost:
		return zone, "changes.create"
	case rest[1] == "changes" && len(rest) == 2:
		return zone, "changes.list"
	case rest[1] == "changes":
		return zone, "changes.get"
	}
	return zone, req.Method + " " + rest[1]
}

// transport sends every attempt of every request through the budget, and retries: a 429 until
// maxThrottleWait is spent (the last 429 then goes back to the caller, which fails the sync softly),
// a 5xx or a transport error twice after 0.5 s and 1 s. The generated client does not retry these
// calls itself.
type transport struct {
	budget *budget
	next   http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var waited time.Duration
	failures := 0
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
		if err := t.budget.wait(req.Context()); err != nil {
			return nil, err
		}
		t.budget.mu.Lock()
		t.budget.requests++
		t.budget.mu.Unlock()
		res, err := t.next.RoundTrip(req)
		t.budget.observe(req, err == nil && res.StatusCode == http.StatusTooManyRequests)
		var pause time.Duration
		switch {
		case err != nil:
			if req.Context().Err() != nil || failures >= maxFailureRetries {
				return nil, err
			}
			pause = backoff(failures)
			failures++
		case res.StatusCode == http.StatusTooManyRequests:
			d := t.budget.throttled()
			if waited+d > maxThrottleWait {
				return res, nil
			}
			waited += d // the budget's pause holds the next attempt
		case res.StatusCode >= 500:
			if failures >= maxFailureRetries {
				return res, nil
			}
			pause = backoff(failures)
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
				pause = min(time.Duration(s)*time.Second, maxThrottleWait)
			}
			failures++
		default:
			t.budget.answered()
			return res, nil
		}
		if res != nil {
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
		}
		if pause > 0 {
			if err := t.budget.sleep(req.Context(), pause); err != nil {
				return nil, err
			}
		}
	}
}

// backoff is the pause before the n-th retry of a failure: 0.5 s, 1 s, 2 s, ...
func backoff(n int) time.Duration { return 500 * time.Millisecond << n }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
