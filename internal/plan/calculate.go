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
//
// From 2*minPartEndpoints endpoints on, it reads the input and plans the rows in parts on several
// goroutines, up to one per processor Go may use (partsFor): a plan at 10^5 endpoints then takes
// both cores of a 2-core machine for a few tens of milliseconds. The result is the same in any
// number of parts.
func Calculate(in Input) Result {
	return calculate(in, partsFor(len(in.Current)+len(in.Desired)))
}

// calculate is Calculate with the input read, and the rows planned, in the given number of parts at
// once. The result does not depend on parts.
func calculate(in Input, parts int) Result {
	if parts > 1 {
		return calculateInParts(in, parts)
	}
	t := buildTable(in, newRecordTypeFilter(in.ManagedRecordTypes, in.ExcludeRecordTypes), 1)
	p := newPlanner(in, &t)
	p.copies = newCopySlab(len(t.entries))
	p.planRows(t.entries)
	p.sortLists()
	return p.result()
}

// calculateInParts is calculate in more than one part. (A function of its own, so that one part, the
// common case, makes no closure and moves nothing to the heap.)
func calculateInParts(in Input, parts int) Result {
	t := buildTable(in, newRecordTypeFilter(in.ManagedRecordTypes, in.ExcludeRecordTypes), parts)
	p := newPlanner(in, &t)
	p.planInParts(parts)
	return p.result()
}

// newPlanner is a planner of the table of in, with no rows planned.
func newPlanner(in Input, t *table) planner {
	p := planner{ownerID: in.OwnerID, oldOwnerID: in.OldOwnerID, policy: in.Policy, unreadable: newUnreadable(in.Unreadable), t: t, cnameRank: -1}
	if r, ok := t.types.rank(endpoint.RecordTypeCNAME); ok {
		p.cnameRank = int32(r)
	}
	return p
}

// planInParts plans the rows of p's table in parts at once, each part with a planner like p, sets p's
// lists to theirs and sorts them.
func (p *planner) planInParts(parts int) {
	entries := p.t.entries
	// Each part plans a run of whole rows, which ends where the next part's begins.
	bounds := make([]int, parts+1)
	for part := 1; part < parts; part++ {
		b := max(bounds[part-1], part*len(entries)/parts)
		for b > 0 && b < len(entries) && sameRow(entries[b-1], entries[b]) {
			b++
		}
		bounds[part] = b
	}
	bounds[parts] = len(entries)
	planners := make([]planner, parts)
	inParts(parts, func(part int) {
		q := &planners[part]
		*q = *p
		rows := entries[bounds[part]:bounds[part+1]]
		q.copies = newCopySlab(len(rows))
		q.planRows(rows)
	})
	// The parts' lists, one after the other, are the lists one part would have made.
	p.creates = joined(planners, func(q *planner) []keyed { return q.creates })
	p.updates = joined(planners, func(q *planner) []keyed { return q.updates })
	p.deletes = joined(planners, func(q *planner) []keyed { return q.deletes })
	p.conflicts = joined(planners, func(q *planner) []Conflict { return q.conflicts })
	p.mismatches = joined(planners, func(q *planner) []OwnerMismatch { return q.mismatches })
	p.held = joined(planners, func(q *planner) []HeldChange { return q.held })
	// The lists are sorted on three goroutines: creates with the rare lists, updates, deletes with
	// the mismatches.
	inParts(3, func(part int) {
		var s nameSorter
		p.sortList(&s, part)
	})
}

// joined is one list of the planners' lists, one after the other, made to measure; nil when they are
// all empty, as one planner's list is.
func joined[T any](planners []planner, list func(*planner) []T) []T {
	if len(planners) == 1 {
		return list(&planners[0])
	}
	n := 0
	for i := range planners {
		n += len(list(&planners[i]))
	}
	if n == 0 {
		return nil
	}
	out := make([]T, 0, n)
	for i := range planners {
		out = append(out, list(&planners[i])...)
	}
	return out
}

// planRows plans the rows of a run of table entries.
func (p *planner) planRows(entries []entry) {
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && sameRow(entries[i], entries[j]) {
			j++
		}
		p.planRow(entries[i:j])
		i = j
	}
}

// keyed is a planned endpoint with the table entry whose key (name, type, set identifier) it has,
// for sorting the output. For a create ep is the copy of the winning candidate, for an update the
// copy that is UpdateNew beside the current record (old), for a delete the current record.
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
	copies                    copySlab
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

// sortLists sorts the planner's lists.
func (p *planner) sortLists() {
	var s nameSorter
	for list := range 3 {
		p.sortList(&s, list)
	}
}

// sortList sorts the creates with the rare lists (list 0), the updates (1) or the deletes with the
// mismatches (2).
func (p *planner) sortList(s *nameSorter, list int) {
	switch list {
	case 0:
		sortByName(s, p.creates, p.t.keyedName, p.t.compareKeyed)
		sortByName(s, p.conflicts, conflictName, compareConflicts)
		sortByName(s, p.held, heldName, compareHeld)
	case 1:
		sortByName(s, p.updates, p.t.keyedName, p.t.compareKeyed)
	case 2:
		sortByName(s, p.deletes, p.t.keyedName, p.t.compareKeyed)
		sortByName(s, p.mismatches, mismatchName, compareMismatches)
	}
}

func (t *table) keyedName(k keyed) string { return t.names[k.name] }
func conflictName(c Conflict) string      { return c.Key.DNSName }
func mismatchName(m OwnerMismatch) string { return m.Key.DNSName }
func heldName(h HeldChange) string        { return h.Key.DNSName }

// compareHeld orders held changes. Ties (a provider listing one key twice) are broken by the record
// itself: the result must not depend on input order.
func compareHeld(a, b HeldChange) int {
	return cmp.Or(compareKeys(a.Key, b.Key), cmp.Compare(a.Action, b.Action), cmp.Compare(a.Resource, b.Resource),
		cmp.Compare(a.Record.String(), b.Record.String()))
}

// result makes the Result of the sorted lists.
func (p *planner) result() Result {
	changes := &Changes{} // an empty list stays nil: the webhook protocol's JSON says null
	if len(p.creates) > 0 {
		changes.Create = make([]*endpoint.Endpoint, len(p.creates))
		for i, c := range p.creates {
			changes.Create[i] = c.ep
		}
	}
	if len(p.updates) > 0 {
		changes.UpdateOld = make([]*endpoint.Endpoint, len(p.updates))
		changes.UpdateNew = make([]*endpoint.Endpoint, len(p.updates))
		for i, u := range p.updates {
			changes.UpdateOld[i], changes.UpdateNew[i] = u.old, u.ep
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
