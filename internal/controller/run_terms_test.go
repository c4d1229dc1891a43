package controller

import (
	"context"
	"testing"
	"time"
)

// Issue 11 defect 3: every Run registered one more event handler with the source (which cannot remove
// handlers), so a replica that led several terms fed each event to every past term's channel. A
// second Run beside a running one must be refused: two loops would be two writers.
func TestRunAgainRegistersNoSecondHandlerAndNeverRunsTwice(t *testing.T) {
	src := &listSource{}
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web"))
	c, _, _ := newTestController(t, src, Settings{Interval: time.Hour, Debounce: 10 * time.Millisecond})
	for term := 0; term < 3; term++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		time.Sleep(100 * time.Millisecond)
		second, stop := context.WithTimeout(ctx, 300*time.Millisecond)
		err := c.Run(second)
		stop()
		if err == nil {
			t.Fatalf("term %d: a second Run beside the running one returned nil, want a refusal", term)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("term %d: %v", term, err)
		}
	}
	src.mu.Lock()
	n := len(src.handlers)
	src.mu.Unlock()
	if n != 1 {
		t.Errorf("%d event handlers registered after three terms, want 1", n)
	}
}
