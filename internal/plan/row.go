package plan

import (
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// owned reports whether an entry is a current record we own (or the owner we migrate from owns).
// It is asked only where a row plans a change or a choice depends on it: most rows are in sync and
// never read their records' owner labels, whose maps lie elsewhere in memory.
func (p *planner) owned(e entry) bool {
	return !e.desired() && ours(p.t.ep(e), p.ownerID, p.oldOwnerID)
}

// planRow plans one (name, set identifier) row: section 7.2 of the behaviour reference.
func (p *planner) planRow(row []entry) {
	if len(row) == 2 && !row[0].desired() && row[1].desired() && row[0].rank() == row[1].rank() {
		// One record and one candidate of its type, four rows in five: what the loops below do with
		// such a row, without splitting it into groups.
		current, winner := row[0], p.t.ep(row[1])
		if needsUpdate(winner, p.t.ep(current)) {
			p.update(current, winner, false)
		} else if p.migrating(p.t.ep(current)) {
			p.update(current, winner, true)
		}
		return
	}
	p.groups = splitRow(row, p.groups[:0])
	p.pending = p.pending[:0]

	var hasCandidates, cnameCandidate, otherCandidate bool
	for _, g := range p.groups {
		if len(g.candidates) > 0 {
			hasCandidates = true
			if g.rank == p.cnameRank {
				cnameCandidate = true
			} else {
				otherCandidate = true
			}
		}
	}
	// RFC 1034: a CNAME cannot share its name with other data, so A/AAAA (and any other type) win.
	dropCNAME := cnameCandidate && otherCandidate
	if dropCNAME {
		p.reportCNAMELosers(row)
	}
	for _, g := range p.groups {
		cands := g.candidates
		if dropCNAME && g.rank == p.cnameRank {
			cands = nil
		}
		switch {
		case len(g.current) == 0 && len(cands) > 0:
			r := p.t.resolveCreate(cands)
			p.conflicts = r.losers(p.t, p.t.key(cands[0]), cands, p.conflicts)
			p.pending = append(p.pending, keyedAt(cands[0], r.winner, nil))
		case len(g.current) > 0 && len(cands) == 0:
			for _, c := range g.current {
				p.delete(c, hasCandidates, row, dropCNAME)
			}
		case len(g.current) > 0:
			current, r := p.pickCurrent(g.current, cands)
			if len(cands) > 1 {
				p.conflicts = r.losers(p.t, p.t.key(current), cands, p.conflicts)
			}
			if needsUpdate(r.winner, p.t.ep(current)) {
				p.update(current, r.winner, false)
			} else if p.migrating(p.t.ep(current)) { // a record of the owner we migrate from is ours

				p.update(current, r.winner, true)
			}
		}
	}

	// A create is planned only when nothing in the row belongs to someone else: the name is theirs.
	if len(p.pending) == 0 {
		return
	}
	var foreign *endpoint.Endpoint // the current record in the row that is not ours, reported first
	for _, g := range p.groups {
		for _, c := range g.current {
			if !p.owned(c) && (foreign == nil || reportedFirst(p.t.ep(c), foreign)) {
				foreign = p.t.ep(c)
			}
		}
	}
	for _, c := range p.pending {
		if foreign != nil {
			p.mismatch(p.t.keyOf(c), ActionCreate, foreign, c.ep.Resource())
			continue
		}
		c.ep = p.copies.copyOf(c.ep)
		p.creates = append(p.creates, c)
	}
}

// The policy is applied before the owner filter, so a change the policy forbids is not reported as
// an owner mismatch.
func (p *planner) update(current entry, winner *endpoint.Endpoint, ownerOnly bool) {
	record := p.t.ep(current)
	if !p.policy.allowsUpdates() {
		if p.owned(current) {
			p.held = append(p.held, HeldChange{Key: p.t.key(current), Action: ActionUpdate, Record: record, Resource: winner.Resource(),
				OwnerMigration: ownerOnly})
		}
		return
	}
	if !p.owned(current) {
		p.mismatch(p.t.key(current), ActionUpdate, record, winner.Resource())
		return
	}
	p.updates = append(p.updates, keyedAt(current, p.copies.updatedEndpoint(winner, record), record))
}

// delete drops a current record. A foreign record nobody here asks for is simply someone else's
// record, not a mismatch; one standing in the way of a desired name is reported, with the resource
// of the row's winning candidate (row and dropCNAME say which it is).
func (p *planner) delete(current entry, contested bool, row []entry, dropCNAME bool) {
	ep := p.t.ep(current)
	if p.owned(current) && p.unreadable.covers(ep.Resource()) {
		p.held = append(p.held, HeldChange{Key: p.t.key(current), Action: ActionDelete, Record: ep, Resource: ep.Resource(), Unreadable: true})
		return
	}
	if !p.policy.allowsDeletes() {
		if p.owned(current) {
			p.held = append(p.held, HeldChange{Key: p.t.key(current), Action: ActionDelete, Record: ep, Resource: ep.Resource()})
		}
		return
	}
	if !p.owned(current) {
		if contested {
			p.mismatch(p.t.key(current), ActionDelete, ep, p.rowWinner(row, dropCNAME).Resource())
		}
		return
	}
	p.deletes = append(p.deletes, keyedAt(current, ep, nil))
}

func (p *planner) mismatch(key endpoint.Key, action Action, holder *endpoint.Endpoint, resource string) {
	p.mismatches = append(p.mismatches, OwnerMismatch{
		Key: key, Action: action, OwnerID: p.ownerID, ForeignOwner: holder.Owner(), Resource: resource,
	})
}

// pickCurrent chooses the current record to update, and the candidate for it. Providers key records
// by (name, type, set identifier), so there is normally exactly one. Should a provider list one key
// twice (two spellings of a name), the choice prefers ours, then one already in sync, then the
// smallest: a pick that moved each time the other duplicate was updated would never converge.
func (p *planner) pickCurrent(current, cands []entry) (entry, resolution) {
	best, bestR := current[0], p.t.resolveUpdate(p.t.ep(current[0]), cands)
	for _, c := range current[1:] {
		r := p.t.resolveUpdate(p.t.ep(c), cands)
		if p.preferCurrent(c, r, best, bestR) {
			best, bestR = c, r
		}
	}
	return best, bestR
}

func (p *planner) preferCurrent(a entry, ar resolution, b entry, br resolution) bool {
	if ao, bo := p.owned(a), p.owned(b); ao != bo {
		return ao
	}
	if as, bs := !needsUpdate(ar.winner, p.t.ep(a)), !needsUpdate(br.winner, p.t.ep(b)); as != bs {
		return as
	}
	return compareCandidates(p.t.ep(a), p.t.ep(b)) < 0
}

// rowWinner is the smallest surviving candidate of the row.
func (p *planner) rowWinner(row []entry, dropCNAME bool) *endpoint.Endpoint {
	var best *endpoint.Endpoint
	for _, e := range row {
		if !e.desired() || dropCNAME && e.rank() == p.cnameRank {
			continue
		}
		if best == nil || compareCandidates(p.t.ep(e), best) < 0 {
			best = p.t.ep(e)
		}
	}
	return best
}

// reportCNAMELosers records a conflict for every CNAME candidate of a row that also has candidates
// of another type.
func (p *planner) reportCNAMELosers(row []entry) {
	winner := p.rowWinner(row, true)
	for _, e := range row {
		if e.desired() && e.rank() == p.cnameRank {
			p.conflicts = append(p.conflicts, Conflict{
				Key:    p.t.key(e),
				Winner: winner.Resource(),
				Loser:  p.t.ep(e).Resource(),
				Reason: "CNAME candidate loses to " + winner.RecordType + " candidate",
			})
		}
	}
}

// reportedFirst orders the foreign records of a row, so that which one is named in a mismatch does
// not depend on input order (a provider may list one name in two spellings, "A.example.com" and
// "a.example.com").
func reportedFirst(a, b *endpoint.Endpoint) bool {
	if a.RecordType != b.RecordType {
		return a.RecordType < b.RecordType
	}
	if a.Owner() != b.Owner() {
		return a.Owner() < b.Owner()
	}
	return compareCandidates(a, b) < 0
}
