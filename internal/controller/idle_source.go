package controller

import (
	"time"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// sourceRelistAfter bounds how long an idle resync trusts that the sources changed only through the
// events they signalled: past it, the sources are listed again and their endpoints hashed, as a
// safety net for a source that failed to signal a change.
const sourceRelistAfter = time.Hour

// sourceListing is when a listing of the sources was made, and how many of their events the
// controller had counted before it began. counted is false until the controller's handler is
// registered (Run): before that, events are not counted and no listing can be reused.
type sourceListing struct {
	events  uint64
	counted bool
	at      time.Time
	// unwatched: the sources read something no informer watches (source.UnwatchedReader); such a
	// listing is never reused.
	unwatched bool
}

// sourceListing describes a listing about to be made. The count is read before the sources are:
// an event that lands during the listing changes the count, so the listing is never reused past it.
func (c *Controller) sourceListing() sourceListing {
	return sourceListing{events: c.sourceEventCount.Load(), counted: c.sourceCounted.Load(), at: c.now(),
		unwatched: source.ReadsUnwatched(c.source)}
}

// reusable reports whether the memo's listing of the sources still stands for this one: no event
// since it was made (sources compute their endpoints from informer caches, which change only by the
// events they signal), and it is younger than sourceRelistAfter.
func (l sourceListing) reusable(m idleMemo, now time.Time) bool {
	return m.valid && l.counted && m.listing.counted && !l.unwatched && !m.listing.unwatched &&
		l.events == m.listing.events && now.Sub(m.listing.at) < sourceRelistAfter
}

// remember records what a listing of the sources said besides its endpoints, so that an idle resync
// reusing it reports the same problems and desired count.
func (m *idleMemo) remember(res source.Result, l sourceListing) {
	m.desiredCount, m.problems, m.unreadable, m.listing = len(res.Endpoints), res.Problems, res.Unreadable, l
}
