package pacing

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps a Retry-After: an API asking for more than this is waited out in steps, so that a
// wrong header cannot stop a process for hours.
const MaxRetryAfter = time.Minute

// RetryAfter reads an HTTP Retry-After header (RFC 9110: delay-seconds or an HTTP date) as a wait from
// now; 0 when absent, malformed or past. It is capped at MaxRetryAfter.
func RetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		d = time.Duration(secs * float64(time.Second))
	} else if at, err := http.ParseTime(h); err == nil {
		d = at.Sub(now)
	}
	return min(max(d, 0), MaxRetryAfter)
}
