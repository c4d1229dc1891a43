package controller

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// maxFailureBackoff caps the wait after a failed run. While runs fail, each retry first probes the
// provider (one call) and lists again only once it answers; events and resyncs wait for the retry.
const maxFailureBackoff = time.Minute

// Run reconciles until ctx ends: once at start, after every burst of source events (debounced), at
// every full resync, and when a backed-off change or a failed run is due again. It returns nil when ctx
// ends; it never returns because of a source or provider error.
//
// Run may be called again after it returned (a replica that leads again), never concurrently: a
// second loop would write beside the first and share its retry book.
func (c *Controller) Run(ctx context.Context) error {
	if !c.running.TryLock() {
		return errors.New("controller: Run called while a previous Run is still running")
	}
	defer c.running.Unlock()
	events := c.sourceEvents()
	// Events from before this term are stale: the run at start covers them.
	select {
	case <-events:
	default:
	}

	resync := time.NewTicker(c.settings.Interval)
	defer resync.Stop()
	var debounce, retry *time.Timer
	debounceC := func() <-chan time.Time { return timerC(debounce) }
	retryC := func() <-chan time.Time { return timerC(retry) }

	var firstEvent time.Time
	run := func(trigger Trigger) {
		stopTimer(&debounce)
		stopTimer(&retry)
		// Any run serves the events that arrived before it, whatever triggered it.
		c.trigger, c.firstEvent = trigger, firstEvent
		firstEvent = time.Time{}
		// An event's run, or a retry's, plans only the names touched since the last run when it can.
		_, err := c.runOnce(ctx, trigger == TriggerEvent || trigger == TriggerRetry)
		if ctx.Err() != nil {
			return
		}
		var wait time.Duration
		if err != nil {
			c.failures++
			wait = failureBackoff(c.failures, c.settings.Interval)
			c.log.Error("Failed to do run once", "error", err.Error(), "retryIn", wait.String())
		} else {
			c.failures = 0
			if due, ok := c.nextDue(); ok {
				wait = max(due.Sub(c.now()), 10*time.Millisecond)
			}
		}
		if wait > 0 {
			retry = time.NewTimer(wait)
		}
	}

	// Whatever is cached may be stale: another leader may have written since (a takeover).
	c.Resync()
	run(TriggerStart)
	for {
		select {
		case <-ctx.Done():
			stopTimer(&debounce)
			stopTimer(&retry)
			return nil
		case <-events:
			if debounce == nil {
				firstEvent = c.now()
				debounce = time.NewTimer(c.settings.Debounce)
			}
		case <-debounceC():
			debounce = nil
			if c.failures > 0 && retry != nil {
				continue // the run after the failure backoff serves these events
			}
			run(TriggerEvent)
		case <-retryC():
			retry = nil
			if c.failures > 0 {
				if err := c.probe(ctx); err != nil {
					c.failures++
					wait := failureBackoff(c.failures, c.settings.Interval)
					c.log.Error("The provider still does not answer", "error", err.Error(), "retryIn", wait.String())
					retry = time.NewTimer(wait)
					continue
				}
				// The failure may have left the cache stale (for example the provider went away).
				c.Resync()
			}
			run(TriggerRetry)
		case <-resync.C:
			if c.failures > 0 && retry != nil {
				continue // backing off: the next retry probes and lists again
			}
			if debounce != nil {
				// Events wait for their debounce: their run comes first, by name, as it would a
				// moment later. It keeps the idle memo when it leaves nothing to do, and the resync
				// then lists and plans nothing; served inside the resync, they made it plan all.
				run(TriggerEvent)
				if c.failures > 0 {
					continue // the retry after the failure backoff does the resync's work
				}
			}
			c.refreshProvider(ctx)
			run(TriggerResync)
		}
	}
}

// nextDue is when a run is due for a backed-off change or a settling delete.
func (c *Controller) nextDue() (time.Time, bool) {
	due, ok := c.retries.nextDue()
	if g := c.guardRecheck; !g.IsZero() && (!ok || g.Before(due)) {
		return g, true
	}
	return due, ok
}

// failureBackoff doubles from 1 s to maxFailureBackoff (or the interval), plus up to a fifth at
// random, so that replicas and views that failed together do not retry in step.
func failureBackoff(failures int, interval time.Duration) time.Duration {
	d := min(time.Second<<min(failures-1, 10), maxFailureBackoff, interval)
	return d + rand.N(d/5+1)
}

// probe asks the registry (and through it the provider) whether the API answers, with one call.
func (c *Controller) probe(ctx context.Context) error {
	if p, ok := c.registry.(provider.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}

func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

func stopTimer(t **time.Timer) {
	if *t != nil {
		(*t).Stop()
		*t = nil
	}
}

// sourceEvents registers one handler with the source, the first time any Run asks: sources cannot
// remove a handler, so a handler per Run would pile up with every leadership term.
func (c *Controller) sourceEvents() <-chan struct{} {
	c.eventsOnce.Do(func() {
		c.events = make(chan struct{}, 1)
		signal := func() {
			select {
			case c.events <- struct{}{}:
			default:
			}
		}
		defer c.sourceCounted.Store(true)
		if o, ok := c.source.(source.ObjectSource); ok {
			o.AddObjectHandler(func(resource string) {
				// Marked before counted: an event's run reads the count before it takes what is
				// marked (idle_carry.go), so every event that count includes is in what it takes.
				c.dirty.mark(resource)
				c.sourceEventCount.Add(1)
				signal()
			})
			return
		}
		c.source.AddEventHandler(func() {
			c.dirty.mark("")
			c.sourceEventCount.Add(1)
			signal()
		})
	})
	return c.events
}
