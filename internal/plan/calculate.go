package plan

import (
	"cmp"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Calculate computes the changes that move Current towards Desired, following external-dns's plan
// (rows keyed by name and set identifier, the PerResource conflict resolver, the policy, then the
// owner filter). It is a pure function: it does not modify its input, the endpoints it returns in
// Create and UpdateNew are fresh copies, and the output order depends only on the input content.
//
// Safety: an UpdateOld or Delete always refers to a current record whose owner label equals
// Input.OwnerID, and a Create never lands on a name and set identifier where some current record is
// not ours.
func Calculate(in Input) Result {
	t := buildTable(in, newRecordTypeFilter(in.ManagedRecordTypes, in.ExcludeRecordTypes))
	p := planner{ownerID: in.OwnerID, oldOwnerID: in.OldOwnerID, policy: in.Policy, unreadable: newUnreadable(in.Unreadable), t: &t, cnameRank: -1}
	if r, ok := t.types.rank(endpoint.RecordTypeCNAME); ok {
		p.cnameRank = int32(r)
	}
	entries := t.entries
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && sameRow(entries[i], entries[j]) {
			j++
		}
		p.planRow(entries[i:j])
		i = j
	}
	return p.result()
}

// keyed pairs a planned endpoint with its normalised key, for sorting the output. For a create ep is
// the winning candidate and for an update the winning candidate beside the current record (old):
// result makes their copies.
type keyed struct {
	key endpoint.Key
	ep  *endpoint.Endpoint
	old *endpoint.Endpoint // UpdateOld, for updates only
}

// planner accumulates the plan of one Calculate call.
type planner struct {
	ownerID    string
	oldOwnerID string
	policy     Policy
	unreadable unreadable
	t          *table
	cnameRank  int32 // CNAME's rank in t.types, -1 when CNAME is not managed

	creates, updates, deletes []keyed
	conflicts                 []Conflict
	mismatches                []OwnerMismatch
	held                      []HeldChange

	// Buffers reused from row to row.
	groups  []typeGroup
	pending []keyed
}

func (p *planner) owned(e *endpoint.Endpoint) bool {
	return e.Owner() == p.ownerID || p.migrating(e)
}

// migrating reports whether e belongs to the owner being migrated from.
func (p *planner) migrating(e *endpoint.Endpoint) bool {
	return p.oldOwnerID != "" && p.oldOwnerID != p.ownerID && e.Owner() == p.oldOwnerID
}

func (p *planner) result() Result {
	slices.SortFunc(p.creates, compareKeyed)
	slices.SortFunc(p.updates, compareKeyed)
	slices.SortFunc(p.deletes, compareKeyed)
	slices.SortFunc(p.conflicts, compareConflicts)
	slices.SortFunc(p.mismatches, compareMismatches)
	// Ties (a provider listing one key twice) are broken by the record itself: the result must not
	// depend on input order.
	slices.SortFunc(p.held, func(a, b HeldChange) int {
		return cmp.Or(compareKeys(a.Key, b.Key), cmp.Compare(a.Action, b.Action), cmp.Compare(a.Resource, b.Resource),
			cmp.Compare(a.Record.String(), b.Record.String()))
	})

	changes := &Changes{}
	for _, c := range p.creates {
		changes.Create = append(changes.Create, c.ep.DeepCopy())
	}
	for _, u := range p.updates {
		changes.UpdateOld = append(changes.UpdateOld, u.old)
		changes.UpdateNew = append(changes.UpdateNew, updatedEndpoint(u.ep, u.old))
	}
	for _, d := range p.deletes {
		changes.Delete = append(changes.Delete, d.ep)
	}
	return Result{Changes: changes, Conflicts: p.conflicts, OwnerMismatches: p.mismatches, HeldByPolicy: p.held}
}

func compareKeys(a, b endpoint.Key) int {
	if c := cmp.Compare(a.DNSName, b.DNSName); c != 0 {
		return c
	}
	if c := cmp.Compare(a.RecordType, b.RecordType); c != 0 {
		return c
	}
	return cmp.Compare(a.SetIdentifier, b.SetIdentifier)
}

func compareKeyed(a, b keyed) int {
	if c := compareKeys(a.key, b.key); c != 0 {
		return c
	}
	// Only duplicate current records share a key (deletes; a row plans at most one create or update
	// per key); order them by content.
	return compareCandidates(a.ep, b.ep)
}

func compareConflicts(a, b Conflict) int {
	return cmp.Or(compareKeys(a.Key, b.Key), cmp.Compare(a.Loser, b.Loser), cmp.Compare(a.Winner, b.Winner), cmp.Compare(a.Reason, b.Reason))
}

func compareMismatches(a, b OwnerMismatch) int {
	return cmp.Or(compareKeys(a.Key, b.Key), cmp.Compare(a.Action, b.Action), cmp.Compare(a.ForeignOwner, b.ForeignOwner), cmp.Compare(a.Resource, b.Resource))
}
