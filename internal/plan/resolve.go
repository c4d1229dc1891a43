package plan

import (
	"cmp"
	"maps"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// compareCandidates is the total order used to choose between endpoints competing for one record set.
// Its first rule is external-dns's (Targets.IsLess: addresses before hostnames, shorter lists, then
// lexical order); the rest only break ties, so that the choice never depends on input order.
func compareCandidates(a, b *endpoint.Endpoint) int {
	if a == b {
		return 0
	}
	if c := compareTargetsAsExternalDNS(a.Targets, b.Targets); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Resource(), b.Resource()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.RecordTTL, b.RecordTTL); c != 0 {
		return c
	}
	if c := slices.Compare(a.Targets, b.Targets); c != 0 {
		return c
	}
	if c := slices.CompareFunc(a.ProviderSpecific, b.ProviderSpecific, compareProperty); c != 0 {
		return c
	}
	if c := compareLabels(a.Labels, b.Labels); c != 0 {
		return c
	}
	return cmp.Compare(a.DNSName, b.DNSName)
}

func compareTargetsAsExternalDNS(a, b endpoint.Targets) int {
	if slices.Equal(a, b) {
		return 0 // IsLess copies and sorts both lists; skip that for the common identical case
	}
	switch {
	case a.IsLess(b):
		return -1
	case b.IsLess(a):
		return 1
	}
	return 0
}

func compareProperty(a, b endpoint.ProviderSpecificProperty) int {
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return cmp.Compare(a.Value, b.Value)
}

func compareLabels(a, b endpoint.Labels) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	ak, bk := slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))
	for i := range ak {
		if c := cmp.Compare(ak[i], bk[i]); c != 0 {
			return c
		}
		if c := cmp.Compare(a[ak[i]], b[bk[i]]); c != 0 {
			return c
		}
	}
	return 0
}

// minCandidate returns the smallest candidate in compareCandidates order.
func (t *table) minCandidate(cands []entry) *endpoint.Endpoint {
	best := t.ep(cands[0])
	for _, c := range cands[1:] {
		if compareCandidates(t.ep(c), best) < 0 {
			best = t.ep(c)
		}
	}
	return best
}

// resolution is the outcome of a contest for one record set.
type resolution struct {
	winner *endpoint.Endpoint
	// heldBy is the resource that already held the record set and kept it, "" when the winner was
	// chosen by target order.
	heldBy string
}

// resolveCreate picks the candidate for a record set that does not exist yet.
func (t *table) resolveCreate(cands []entry) resolution {
	return resolution{winner: t.minCandidate(cands)}
}

// resolveUpdate picks the candidate for an existing record set: the resource that holds it keeps it
// (external-dns's "first resource to take a name keeps it"); otherwise the smallest candidate.
func (t *table) resolveUpdate(current *endpoint.Endpoint, cands []entry) resolution {
	if len(cands) == 1 {
		// The one candidate wins whoever holds the record set, and with no loser heldBy is never
		// read: skip looking up both resource labels.
		return resolution{winner: t.ep(cands[0])}
	}
	holder := current.Resource()
	var best *endpoint.Endpoint
	for _, c := range cands {
		if t.ep(c).Resource() == holder && (best == nil || compareCandidates(t.ep(c), best) < 0) {
			best = t.ep(c)
		}
	}
	if best == nil {
		return t.resolveCreate(cands)
	}
	return resolution{winner: best, heldBy: holder}
}

// losers reports every candidate other than the winner as a conflict. An exact duplicate of the winner
// from the same resource is not a conflict: it asks for the very same record set.
func (r resolution) losers(t *table, key endpoint.Key, cands []entry, out []Conflict) []Conflict {
	for _, c := range cands {
		if t.ep(c) == r.winner || sameRecordRequest(t.ep(c), r.winner) {
			continue
		}
		reason := "candidate with the smaller target set wins"
		switch {
		case r.heldBy != "" && t.ep(c).Resource() != r.heldBy:
			reason = "name already held by " + describeResource(r.heldBy)
		case compareTargetsAsExternalDNS(r.winner.Targets, t.ep(c).Targets) == 0:
			reason = "equal target sets; tie broken by resource name, then TTL"
		}
		out = append(out, Conflict{Key: key, Winner: r.winner.Resource(), Loser: t.ep(c).Resource(), Reason: reason})
	}
	return out
}

func sameRecordRequest(a, b *endpoint.Endpoint) bool {
	return a.Resource() == b.Resource() && a.RecordTTL == b.RecordTTL &&
		sameTargets(a.Targets, b.Targets) && sameProviderSpecific(a.ProviderSpecific, b.ProviderSpecific)
}

func describeResource(r string) string {
	if r == "" {
		return "an endpoint without a resource label"
	}
	return r
}
