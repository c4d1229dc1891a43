package plan

import (
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// needsUpdate is external-dns's update rule: targets differ, a configured desired TTL differs, or the
// provider-specific properties differ. An unset (0) desired TTL never causes an update, so a provider
// default TTL does not churn. Labels never cause an update.
func needsUpdate(desired, current *endpoint.Endpoint) bool {
	if !sameTargets(desired.Targets, current.Targets) {
		return true
	}
	if desired.RecordTTL.IsConfigured() && desired.RecordTTL != current.RecordTTL {
		return true
	}
	return !sameProviderSpecific(desired.ProviderSpecific, current.ProviderSpecific)
}

// sameTargets is Targets.Same with a fast path: most records in a steady state are byte-identical,
// and Same allocates and parses every time.
func sameTargets(a, b endpoint.Targets) bool {
	return slices.Equal(a, b) || a.Same(b)
}

// sameProviderSpecific is endpoint.SameProviderSpecific with the same kind of fast path.
func sameProviderSpecific(a, b endpoint.ProviderSpecific) bool {
	return slices.Equal(a, b) || endpoint.SameProviderSpecific(a, b)
}

// updatedEndpoint is the UpdateNew side of an update: the winning candidate, carrying the current
// record's labels under its own. The owner label is always the current record's, so an update can
// never move a record to another owner; labels the registry keeps on the record (an encryption nonce)
// survive; the resource label follows the candidate that now holds the record.
func updatedEndpoint(winner, current *endpoint.Endpoint) *endpoint.Endpoint {
	out := withoutLabels(winner)
	labels := make(endpoint.Labels, len(current.Labels)+len(winner.Labels))
	for k, v := range winner.Labels {
		if k != endpoint.OwnerLabelKey {
			labels[k] = v
		}
	}
	for k, v := range current.Labels {
		if _, set := labels[k]; !set || k == endpoint.OwnerLabelKey {
			labels[k] = v
		}
	}
	out.Labels = labels
	return out
}

// withoutLabels is DeepCopy without copying the labels, which the caller replaces.
func withoutLabels(e *endpoint.Endpoint) *endpoint.Endpoint {
	out := *e
	out.Labels = nil
	out.Targets = append(endpoint.Targets(nil), e.Targets...)
	if e.ProviderSpecific != nil {
		out.ProviderSpecific = append(endpoint.ProviderSpecific(nil), e.ProviderSpecific...)
	}
	return &out
}
