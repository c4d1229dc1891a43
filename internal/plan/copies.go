package plan

import (
	"maps"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// copySlab hands out the endpoints that Create and UpdateNew return, cut from one array of
// endpoints and one array of targets made for the whole plan, instead of two allocations per
// endpoint: a plan at 10^5 endpoints makes 10^4 of them. Each endpoint is still independent of the
// input and of the others (its targets slice is capped at its own length, so an append reallocates
// rather than writing into its neighbour's); what is shared is only the memory they are cut from,
// which lives as long as any of them.
type copySlab struct {
	endpoints []endpoint.Endpoint
	targets   []string
}

// newCopySlab makes room for copies of the given endpoints.
func newCopySlab(sources ...[]keyed) copySlab {
	var n, targets int
	for _, list := range sources {
		n += len(list)
		for _, k := range list {
			targets += len(k.ep.Targets)
		}
	}
	return copySlab{endpoints: make([]endpoint.Endpoint, n), targets: make([]string, targets)}
}

// copyOf is e.DeepCopy() cut from the slab.
func (s *copySlab) copyOf(e *endpoint.Endpoint) *endpoint.Endpoint {
	out := s.withoutLabels(e)
	out.Labels = maps.Clone(e.Labels) // nil stays nil, as in DeepCopy
	return out
}

// withoutLabels is DeepCopy without copying the labels, which the caller replaces.
func (s *copySlab) withoutLabels(e *endpoint.Endpoint) *endpoint.Endpoint {
	out := &s.endpoints[0]
	s.endpoints = s.endpoints[1:]
	*out = *e
	out.Labels = nil
	out.Targets = nil // DeepCopy's append to nil leaves an empty list nil
	if n := len(e.Targets); n > 0 {
		out.Targets = s.targets[:n:n]
		s.targets = s.targets[n:]
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
