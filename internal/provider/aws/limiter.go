package aws

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"golang.org/x/time/rate"
)

// Limiter is the client-side budget of one AWS account: Route 53 allows 5 requests per second per
// account across every client. It is adaptive: each Throttling or PriorRequestNotComplete answer
// halves the rate (down to a tenth of the maximum), and each success gives back 2% of the maximum, so
// the rate recovers over about 50 calls. Every attempt, retries included, waits for a token.
type Limiter struct {
	mu      sync.Mutex
	max     float64
	limiter *rate.Limiter
	// throttles counts throttling answers seen, for tests and logs.
	throttles int
}

// NewLimiter returns a limiter allowing perSecond requests per second at most (burst 1).
func NewLimiter(perSecond float64) *Limiter {
	if perSecond <= 0 {
		perSecond = DefaultRequestsPerSecond
	}
	return &Limiter{max: perSecond, limiter: rate.NewLimiter(rate.Limit(perSecond), 1)}
}

// Wait blocks until the next request may go.
func (l *Limiter) Wait(ctx context.Context) error { return l.limiter.Wait(ctx) }

// Rate is the current rate in requests per second.
func (l *Limiter) Rate() float64 { return float64(l.limiter.Limit()) }

// Throttles is how many throttling answers the limiter has seen.
func (l *Limiter) Throttles() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.throttles
}

// observe adapts the rate to one answer.
func (l *Limiter) observe(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := float64(l.limiter.Limit())
	switch {
	case isThrottle(err):
		l.throttles++
		l.limiter.SetLimit(rate.Limit(max(l.max/10, cur/2)))
	case err == nil && cur < l.max:
		l.limiter.SetLimit(rate.Limit(min(l.max, cur+l.max/50)))
	}
}

// isThrottle reports the answers that mean "too fast": the account quota and a busy zone.
func isThrottle(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "Throttling", "ThrottlingException", "PriorRequestNotComplete", "RequestLimitExceeded", "TooManyRequestsException":
		return true
	}
	return false
}

// middleware waits for the limiter before each attempt. It sits after the SDK's retry middleware, so
// retries are paced too and each attempt's answer adapts the rate.
func (l *Limiter) middleware(stack *middleware.Stack) error {
	return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("ZonekeeperRateLimit",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			if err := l.Wait(ctx); err != nil {
				return middleware.FinalizeOutput{}, middleware.Metadata{}, err
			}
			out, md, err := next.HandleFinalize(ctx, in)
			l.observe(err)
			return out, md, err
		}), "Retry", middleware.After)
}
