package controller

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

type observerFunc func(Report)

func (f observerFunc) Reconciled(r Report) { f(r) }

// Issue 11 defect 1: a record set the provider rejected stays in the retry book after its object is
// deleted; the entry, due again and again, made Run reconcile every 10 ms forever. Once the object is
// gone, nothing is due and the loop is idle.
func TestRejectedRecordOfADeletedObjectIsForgotten(t *testing.T) {
	src := &listSource{}
	src.set(nil,
		a("web.example.com", "192.0.2.1", "service/default/web"),
		a("outside.example.org", "192.0.2.2", "ingress/default/stray")) // outside the zone: rejected
	c, _, _ := newTestController(t, src, Settings{Interval: time.Hour, Debounce: 10 * time.Millisecond})
	var runs atomic.Int64
	c.settings.Observer = observerFunc(func(Report) { runs.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	time.Sleep(300 * time.Millisecond)
	src.set(nil, a("web.example.com", "192.0.2.1", "service/default/web")) // the stray Ingress is deleted
	time.Sleep(300 * time.Millisecond)
	// Over the next 3 s (past the first backoff of 1 s and the second of 2 s), no run is due.
	before := runs.Load()
	time.Sleep(3 * time.Second)
	if n := runs.Load() - before; n > 0 {
		t.Errorf("%d reconciles in 3 idle seconds after the rejected object went away, want 0", n)
	}
	cancel()
	<-done
	if _, ok := c.retries.nextDue(); ok {
		t.Error("the retry book still holds the deleted object's record set")
	}
}
