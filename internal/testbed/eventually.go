package testbed

import (
	"testing"
	"time"
)

// Eventually retries check every 20 ms until it returns nil, and fails the test with the last error
// when timeout passes first. what names the condition in the failure.
func Eventually(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not true after %s: %v", what, timeout, err)
}
