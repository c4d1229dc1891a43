package events

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The Event budget. A first sync of 20,000 Ingresses, or a change that touches every object, would
// be one Event per object: an hour of writes at the Events client's rate, the API server's and
// etcd's work, and past client-go's queue of 1,000 the rest dropped without a word. So the
// per-object Events of a window are bounded, and what is over the bound is told per namespace.
const (
	// PerObjectEvents is how many Events on single objects are recorded per BudgetWindow. The
	// window opens at the first Event after the last one closed.
	PerObjectEvents = 100
	// BudgetWindow is the window of PerObjectEvents.
	BudgetWindow = time.Minute
	// SummaryEvents bounds the summary Events written when a window closes (one per namespace and
	// reason); namespaces past it are only logged.
	SummaryEvents = 100
	// SummaryNames is how many objects a summary names (the first by kind and name); the count
	// covers all of them.
	SummaryNames = 10
	// summaryMessageChars bounds the first object's message quoted in a summary.
	summaryMessageChars = 300
)

// summaryKey is what one summary Event stands for: Events of one type and reason on the objects of
// one namespace ("" for cluster-scoped objects).
type summaryKey struct {
	namespace, eventType, reason string
}

// summary is the Events over the budget for one summaryKey in a window.
type summary struct {
	count int
	// names holds the SummaryNames smallest "kind/name", sorted.
	names []string
	// first is the first object's reference and message: a cluster-scoped summary is recorded on it,
	// and every summary quotes its message.
	first        *corev1.ObjectReference
	firstMessage string
}

func (s *summary) add(ref *corev1.ObjectReference, message string) {
	if s.count == 0 {
		s.first, s.firstMessage = ref, message
	}
	s.count++
	name := strings.ToLower(ref.Kind) + "/" + ref.Name
	i := sort.SearchStrings(s.names, name)
	if i >= SummaryNames {
		return
	}
	s.names = append(s.names, "")
	copy(s.names[i+1:], s.names[i:])
	s.names[i] = name
	if len(s.names) > SummaryNames {
		s.names = s.names[:SummaryNames]
	}
}

// budget decides which Events are recorded on their object and gathers the others.
type budget struct {
	window time.Duration
	// flush is called, without the lock, when a window with Events over the budget has closed.
	flush func(pending map[summaryKey]*summary, perObject int)

	mu        sync.Mutex
	windowEnd time.Time
	used      int
	pending   map[summaryKey]*summary
	timer     *time.Timer
	stopped   bool
}

// admit reports whether an Event may be recorded on its object; when not, the Event is counted
// into its namespace's summary.
func (b *budget) admit(ref *corev1.ObjectReference, eventType, reason, message string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if !now.Before(b.windowEnd) {
		b.windowEnd, b.used = now.Add(b.window), 0
	}
	if b.used < PerObjectEvents || b.stopped {
		b.used++
		return true
	}
	if b.pending == nil {
		b.pending = map[summaryKey]*summary{}
		used := b.used
		b.timer = time.AfterFunc(b.windowEnd.Sub(now), func() { b.closeWindow(used) })
	}
	key := summaryKey{namespace: ref.Namespace, eventType: eventType, reason: reason}
	s := b.pending[key]
	if s == nil {
		s = &summary{}
		b.pending[key] = s
	}
	s.add(ref, message)
	return false
}

// closeWindow hands the gathered summaries to flush.
func (b *budget) closeWindow(perObject int) {
	b.mu.Lock()
	pending := b.pending
	b.pending, b.timer = nil, nil
	b.mu.Unlock()
	if len(pending) > 0 {
		b.flush(pending, perObject)
	}
}

// stop writes what is gathered now (--once exits right after) and lets every later Event through.
func (b *budget) stop() {
	b.mu.Lock()
	b.stopped = true
	if b.timer != nil {
		b.timer.Stop()
	}
	used := b.used
	b.mu.Unlock()
	b.closeWindow(used)
}

// sortedKeys orders summaries by namespace, type and reason, so which ones past SummaryEvents are
// only logged does not depend on map order.
func sortedKeys(pending map[summaryKey]*summary) []summaryKey {
	keys := make([]summaryKey, 0, len(pending))
	for k := range pending {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		if a.eventType != b.eventType {
			return a.eventType < b.eventType
		}
		return a.reason < b.reason
	})
	return keys
}

// summaryMessage is the text of one summary Event.
func summaryMessage(k summaryKey, s *summary, window time.Duration) string {
	where := "in namespace " + k.namespace
	if k.namespace == "" {
		where = "that are cluster-scoped"
	}
	names := strings.Join(s.names, ", ")
	if more := s.count - len(s.names); more > 0 {
		names += fmt.Sprintf(" and %d more", more)
	}
	first := s.firstMessage
	if len(first) > summaryMessageChars {
		first = first[:summaryMessageChars] + "…"
	}
	return fmt.Sprintf("%s: %d objects %s, told here and not one by one (zonekeeper records at most %d Events on single objects per %s): %s. First, %s/%s: %s",
		k.reason, s.count, where, PerObjectEvents, window, names, strings.ToLower(s.first.Kind), s.first.Name, first)
}
