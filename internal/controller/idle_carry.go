package controller

import (
	"reflect"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// An event's run plans the names of the objects that changed; the idle memo described a plan of
// everything that changed nothing. When the run started from the memo's state (the registry's cache
// at the memo's generation, the same domain filter) and a plan of its names against the cache after
// its writes changes nothing, a plan of everything would change nothing either, and would report the
// memo's conflicts, mismatches, held changes and problems at other names and objects, and that
// plan's at the run's own (plan.Result.Splice; every plan row is one name). The memo is kept so:
// without it, the first resync after any event lists every source and plans every name again
// (seconds at 1M endpoints), and events wait for it.
//
// The plan after the writes is made again, not taken from the run's: what a plan reports at a name
// depends on what the name holds (a conflict's reason names the object that holds the record once
// the run created it). A run that wrote nothing reuses its own plan.
//
// The kept memo stands for a listing of the sources that saw the events counted before the run took
// its objects (the handler marks before it counts), and keeps the time of the last real listing: the
// hourly relisting of quiet sources is not put off by events. Its desired hash is dropped (the run
// did not list the sources): a resync that must list them plans everything, as before.

// idleCarryable reports whether an event's run that read the registry's cache at generation
// (serial, mutations) under filter starts from the memo's state.
func (c *Controller) idleCarryable(listing sourceListing, serial, mutations uint64, filter plan.DomainFilter) bool {
	m := c.idle
	return m.valid && listing.counted && m.listing.counted && serial == m.serial && mutations == m.mutations &&
		reflect.DeepEqual(filter, m.filter)
}

// carryIdle makes the memo describe the state after an event's run that started from prior's and
// completed, when nothing is left to do: everything the run planned went out (no refusal, rejection,
// retry, pending name or settling delete), the registry's cache moved only by the run's writes (same
// listing serial), and replan, the run's names planned again against the cache as it is now, changes
// nothing. Otherwise the memo stays dropped. dirty are the objects the run asked the source for,
// scope the names it planned.
func (c *Controller) carryIdle(prior idleMemo, listing sourceListing, out Outcome, sourceProblems []endpoint.Problem,
	dirty, scope map[string]bool, replan func() (result plan.Result, serial, mutations uint64, ok bool)) {
	if len(out.Problems) != len(sourceProblems) || out.Rejected > 0 || len(c.pending) > 0 ||
		len(c.retries.entries) > 0 || !c.guardRecheck.IsZero() {
		return // a refusal adds a problem; a rejection, a hold or a settling delete leaves work
	}
	result, serial, mutations, ok := replan()
	if !ok || serial != prior.serial || result.Changes.HasChanges() {
		return // the cache was dropped or listed again, or the names are not done
	}
	m := prior
	m.hashed, m.desired = false, 0
	m.serial, m.mutations = serial, mutations
	m.result = prior.result.Splice(result, func(name string) bool { return scope[name] })
	if out.Changes != nil {
		m.current += len(out.Changes.Create) - len(out.Changes.Delete)
	}
	m.desiredCount = c.index.total
	m.problems = splicedProblems(prior.problems, sourceProblems, dirty)
	m.listing.events = listing.events
	m.listing.unwatched = m.listing.unwatched || listing.unwatched
	c.idle = m
}

// splicedProblems is prior's problems of objects the run did not read and the run's own.
func splicedProblems(prior, fresh []endpoint.Problem, dirty map[string]bool) []endpoint.Problem {
	out := slices.DeleteFunc(slices.Clone(prior), func(p endpoint.Problem) bool { return dirty[problemToken(p)] })
	return append(out, fresh...)
}
