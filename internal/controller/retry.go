package controller

import (
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

const (
	firstRetry = time.Second
	maxRetry   = 5 * time.Minute
)

// retryBook remembers record sets the provider rejected, so that they are retried with exponential
// backoff instead of on every event, and never hold back the other records.
type retryBook struct {
	entries map[endpoint.Key]retryEntry
}

type retryEntry struct {
	attempts int
	due      time.Time
}

func newRetryBook() retryBook { return retryBook{entries: map[endpoint.Key]retryEntry{}} }

// failed records a rejection and returns the wait before the next attempt.
func (b retryBook) failed(k endpoint.Key, now time.Time) time.Duration {
	e := b.entries[k]
	e.attempts++
	d := min(firstRetry<<min(e.attempts-1, 20), maxRetry)
	e.due = now.Add(d)
	b.entries[k] = e
	return d
}

// attempts returns how often a record set has been rejected in a row.
func (b retryBook) attempts(k endpoint.Key) int { return b.entries[k].attempts }

// succeeded forgets every record set in changes that was not just rejected again.
func (b retryBook) succeeded(changes *plan.Changes, now time.Time) {
	for _, list := range [][]*endpoint.Endpoint{changes.Create, changes.UpdateNew, changes.Delete} {
		for _, e := range list {
			if entry, ok := b.entries[e.Key()]; ok && !entry.due.After(now) {
				delete(b.entries, e.Key())
			}
		}
	}
}

// holdBack returns the changes without the record sets whose retry is not yet due. c is the whole
// plan: a record set the plan no longer asks for (its object was deleted or renamed) is forgotten, or
// its due entry would wake the loop again and again for a change that will never be planned.
func (b retryBook) holdBack(c *plan.Changes, now time.Time) *plan.Changes {
	if len(b.entries) == 0 {
		return c
	}
	planned := make(map[endpoint.Key]bool, c.Len())
	for _, list := range [][]*endpoint.Endpoint{c.Create, c.UpdateNew, c.Delete} {
		for _, e := range list {
			planned[e.Key()] = true
		}
	}
	for k := range b.entries {
		if !planned[k] {
			delete(b.entries, k)
		}
	}
	return b.notWaiting(c, now)
}

// notWaiting is c without the changes whose record set is still backing off at now.
func (b retryBook) notWaiting(c *plan.Changes, now time.Time) *plan.Changes {
	waiting := func(e *endpoint.Endpoint) bool {
		entry, ok := b.entries[e.Key()]
		return ok && entry.due.After(now)
	}
	out := &plan.Changes{}
	for _, e := range c.Create {
		if !waiting(e) {
			out.Create = append(out.Create, e)
		}
	}
	for i, e := range c.UpdateNew {
		if !waiting(e) {
			out.UpdateOld = append(out.UpdateOld, c.UpdateOld[i])
			out.UpdateNew = append(out.UpdateNew, e)
		}
	}
	for _, e := range c.Delete {
		if !waiting(e) {
			out.Delete = append(out.Delete, e)
		}
	}
	return out
}

// nextDue returns the earliest time a held-back record set may be tried again.
func (b retryBook) nextDue() (time.Time, bool) {
	var first time.Time
	for _, e := range b.entries {
		if first.IsZero() || e.due.Before(first) {
			first = e.due
		}
	}
	return first, !first.IsZero()
}

func asApplyError(err error) (*provider.ApplyError, bool) { return provider.AsApplyError(err) }
