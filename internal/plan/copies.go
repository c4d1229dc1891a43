package plan

import (
	"maps"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// copySlab hands out the endpoints that Create and UpdateNew return, cut from arrays of endpoints and
// of targets made a few hundred at a time, instead of two allocations per endpoint: a plan at 10^5
// endpoints makes 10^4 of them. Each endpoint is still independent of the input and of the others
// (its targets slice is capped at its own length, so an append reallocates rather than writing into
// its neighbour's); what is shared is only the memory they are cut from, which lives as long as any of
// them.
//
// The copies are made while the rows are planned, in the order the input lies in memory, when the
// endpoint and its labels were just read: made after sorting, in the order of names, nearly every
// read missed the CPU's cache.
type copySlab struct {
	endpoints []endpoint.Endpoint
	targets   []string
	chunk     int // the length of the last array of endpoints; the next is twice as long, up to maxSlabChunk
	// most is how many more copies the slab can be asked for (a copy is of a candidate, so at most
	// the number of entries in the planner's rows): a plan of a few names, as an event's, cuts its
	// copies from an array as short as they are few.
	most int
}

// newCopySlab is a slab for the copies of a planner's rows, which hold entries table entries.
func newCopySlab(entries int) copySlab { return copySlab{most: entries} }

// minSlabChunk and maxSlabChunk bound the arrays a slab allocates: 64 endpoints are 7 KiB, 512 are
// 56 KiB.
const minSlabChunk = 64

const maxSlabChunk = 512

// next returns the next endpoint of the slab, zero.
func (s *copySlab) next() *endpoint.Endpoint {
	if len(s.endpoints) == 0 {
		s.chunk = max(1, min(max(2*s.chunk, minSlabChunk), maxSlabChunk, s.most))
		s.endpoints = make([]endpoint.Endpoint, s.chunk)
	}
	s.most--
	out := &s.endpoints[0]
	s.endpoints = s.endpoints[1:]
	return out
}

// targetsOf returns n zero targets cut from the slab.
func (s *copySlab) targetsOf(n int) []string {
	if len(s.targets) < n {
		s.targets = make([]string, max(n, s.chunk))
	}
	out := s.targets[:n:n]
	s.targets = s.targets[n:]
	return out
}

// copyOf is e.DeepCopy() cut from the slab.
func (s *copySlab) copyOf(e *endpoint.Endpoint) *endpoint.Endpoint {
	out := s.withoutLabels(e)
	out.Labels = maps.Clone(e.Labels) // nil stays nil, as in DeepCopy
	return out
}

// withoutLabels is DeepCopy without copying the labels, which the caller replaces.
func (s *copySlab) withoutLabels(e *endpoint.Endpoint) *endpoint.Endpoint {
	out := s.next()
	*out = *e
	out.Labels = nil
	out.Targets = nil // DeepCopy's append to nil leaves an empty list nil
	if n := len(e.Targets); n > 0 {
		out.Targets = s.targetsOf(n)
		copy(out.Targets, e.Targets)
	}
	if e.ProviderSpecific != nil {
		out.ProviderSpecific = append(endpoint.ProviderSpecific(nil), e.ProviderSpecific...)
	}
	return out
}

// updatedEndpoint is the UpdateNew side of an update: the winning candidate, carrying the current
// record's labels under its own. The owner label is always the current record's, so an update can
// never move a record to another owner; labels the registry keeps on the record (an encryption nonce)
// survive; the resource label follows the candidate that now holds the record.
func (s *copySlab) updatedEndpoint(winner, current *endpoint.Endpoint) *endpoint.Endpoint {
	out := s.withoutLabels(winner)
	// The current record's labels, then the candidate's over them but for the owner: cloning a map is
	// one copy of its memory where building one inserts key by key.
	labels := maps.Clone(current.Labels)
	if labels == nil {
		labels = make(endpoint.Labels, len(winner.Labels))
	}
	for k, v := range winner.Labels {
		if k != endpoint.OwnerLabelKey {
			labels[k] = v
		}
	}
	out.Labels = labels
	return out
}
