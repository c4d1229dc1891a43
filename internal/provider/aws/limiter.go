package aws

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/zonekeeper/zonekeeper/internal/pacing"
)

// Limiter is the client-side budget of one AWS account (internal/pacing): Route 53 allows 5 requests
// per second per account across every client. Each Throttling or PriorRequestNotComplete answer halves
// the rate (down to a tenth of the maximum), a Retry-After is waited out, and each success gives back
// 2% of the maximum, so the rate recovers over about 50 calls. Every attempt, retries included, waits
// for a token.
type Limiter = pacing.Bucket

// NewLimiter returns a limiter allowing perSecond requests per second at most (burst 1);
// DefaultRequestsPerSecond when perSecond is not positive.
func NewLimiter(perSecond float64) *Limiter {
	if perSecond <= 0 {
		perSecond = DefaultRequestsPerSecond
	}
	return pacing.New(perSecond)
}

// observe adapts the rate to one answer.
func observe(l *Limiter, err error) {
	switch {
	case isThrottle(err):
		l.Throttled(retryAfter(err))
	case err == nil:
		l.Succeeded()
	}
}

// retryAfter is the wait an HTTP answer asks for, if any (Route 53 rarely sends one): the standard
// Retry-After, or AWS's x-amz-retry-after in milliseconds.
func retryAfter(err error) time.Duration {
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.Response == nil {
		return 0
	}
	if ms, perr := strconv.ParseInt(strings.TrimSpace(re.Response.Header.Get("x-amz-retry-after")), 10, 64); perr == nil && ms > 0 {
		return min(time.Duration(ms)*time.Millisecond, pacing.MaxRetryAfter)
	}
	return pacing.RetryAfter(re.Response.Header.Get("Retry-After"), time.Now())
}

// isThrottle reports the answers that mean "too fast": the account quota and a busy zone.
func isThrottle(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		var re *awshttp.ResponseError
		return errors.As(err, &re) && re.HTTPStatusCode() == 429
	}
	switch ae.ErrorCode() {
	case "Throttling", "ThrottlingException", "PriorRequestNotComplete", "RequestLimitExceeded", "TooManyRequestsException":
		return true
	}
	return false
}

// zoneKey carries the hosted zone a call is about, for the per-zone call metrics.
type zoneKey struct{}

func withZone(ctx context.Context, z zone) context.Context {
	return context.WithValue(ctx, zoneKey{}, z.name)
}

// pacedBy returns the client middleware that waits for the limiter before each attempt. It sits after
// the SDK's retry middleware, so retries are paced too and each attempt's answer adapts the rate; each
// attempt is counted (by operation and zone) when m is set.
func pacedBy(l *Limiter, m pacing.Metrics) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("ZonekeeperRateLimit",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if err := l.Wait(ctx); err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				out, md, err := next.HandleFinalize(ctx, in)
				observe(l, err)
				if m != nil {
					zone, _ := ctx.Value(zoneKey{}).(string)
					m.APICall("aws", zone, middleware.GetOperationName(ctx), isThrottle(err))
				}
				return out, md, err
			}), "Retry", middleware.After)
	}
}
