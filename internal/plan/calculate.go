package plan

import (
	"cmp"

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

// keyed is a planned endpoint with the table entry whose key (name, type, set identifier) it has,
// for sorting the output. For a create ep is the winning candidate and for an update the winning
// candidate beside the current record (old): result makes their copies.
type keyed struct {
	ep    *endpoint.Endpoint
	old   *endpoint.Endpoint // UpdateOld, for updates only
	name  int32              // as in entry
	setID int32
	rank  int32
}

func keyedAt(at entry, ep, old *endpoint.Endpoint) keyed {
	return keyed{ep: ep, old: old, name: at.name, setID: at.setID, rank: at.rank()}
}

func (t *table) keyOf(k keyed) endpoint.Key {
	return t.keyOfParts(k.name, k.setID, k.rank)
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

// ours reports whether a current record is ours: it carries our owner label, or that of the owner
// being migrated from.
func ours(e *endpoint.Endpoint, ownerID, oldOwnerID string) bool {
	owner := e.Owner()
	return owner == ownerID || oldOwnerID != "" && oldOwnerID != ownerID && owner == oldOwnerID
}

// migrating reports whether e belongs to the owner being migrated from.
func (p *planner) migrating(e *endpoint.Endpoint) bool {
	return p.oldOwnerID != "" && p.oldOwnerID != p.ownerID && e.Owner() == p.oldOwnerID
}

func (p *planner) result() Result {
	var s nameSorter
	keyedName := func(k keyed) string { return p.t.names[k.name] }
	sortByName(&s, p.creates, keyedName, p.t.compareKeyed)
	sortByName(&s, p.updates, keyedName, p.t.compareKeyed)
	sortByName(&s, p.deletes, keyedName, p.t.compareKeyed)
	sortByName(&s, p.conflicts, func(c Conflict) string { return c.Key.DNSName }, compareConflicts)
	sortByName(&s, p.mismatches, func(m OwnerMismatch) string { return m.Key.DNSName }, compareMismatches)
	// Ties (a provider listing one key twice) are broken by the record itself: the result must not
	// depend on input order.
	sortByName(&s, p.held, func(h HeldChange) string { return h.Key.DNSName }, func(a, b HeldChange) int {
		return cmp.Or(compareKeys(a.Key, b.Key), cmp.Compare(a.Action, b.Action), cmp.Compare(a.Resource, b.Resource),
			cmp.Compare(a.Record.String(), b.Record.String()))
	})

	changes := &Changes{} // an empty list stays nil: the webhook protocol's JSON says null
	slab := newCopySlab(p.creates, p.updates)
	if len(p.creates) > 0 {
		changes.Create = make([]*endpoint.Endpoint, len(p.creates))
		for i, c := range p.creates {
			changes.Create[i] = slab.copyOf(c.ep)
		}
	}
	if len(p.updates) > 0 {
		changes.UpdateOld = make([]*endpoint.Endpoint, len(p.updates))
		changes.UpdateNew = make([]*endpoint.Endpoint, len(p.updates))
		for i, u := range p.updates {
			changes.UpdateOld[i], changes.UpdateNew[i] = u.old, slab.updatedEndpoint(u.ep, u.old)
		}
	}
	if len(p.deletes) > 0 {
		changes.Delete = make([]*endpoint.Endpoint, len(p.deletes))
		for i, d := range p.deletes {
			changes.Delete[i] = d.ep
		}
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

// compareKeyed orders as compareKeys does the keys of a and b: names, then types (ranks order as
// type names do), then set identifiers.
func (t *table) compareKeyed(a, b keyed) int {
	if a.name != b.name {
		return cmp.Compare(t.names[a.name], t.names[b.name])
	}
	if a.rank != b.rank {
		return cmp.Compare(a.rank, b.rank)
	}
	if a.setID != b.setID {
		return cmp.Compare(t.setIDs[a.setID], t.setIDs[b.setID])
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
