package aws

import (
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// group is a set of units that must reach Route 53 in the same batch: a record and its ownership TXT,
// and every change at one name.
type group []*unit

// batch is what one ChangeResourceRecordSets sends.
type batch []group

// cost is what a change counts against Route 53's per-request limits (section 2.4 of the reference):
// changes, ResourceRecord elements (an alias counts 1) and value characters; an UPSERT counts twice.
type cost struct{ changes, values, bytes int }

func (c cost) add(o cost) cost {
	return cost{c.changes + o.changes, c.values + o.values, c.bytes + o.bytes}
}

func changeCost(ch r53types.Change) cost {
	c := cost{changes: 1, values: 1}
	if rr := ch.ResourceRecordSet; rr.AliasTarget == nil {
		c.values = len(rr.ResourceRecords)
		for _, v := range rr.ResourceRecords {
			c.bytes += len(deref(v.Value))
		}
	}
	if ch.Action == r53types.ChangeActionUpsert {
		c = cost{2 * c.changes, 2 * c.values, 2 * c.bytes}
	}
	return c
}

func (g group) cost() cost {
	var c cost
	for _, u := range g {
		for _, ch := range u.changes {
			c = c.add(changeCost(ch))
		}
	}
	return c
}

func (p *Provider) fits(c cost) bool {
	return c.changes <= p.cfg.BatchChangeSize && c.values <= p.cfg.BatchChangeSizeValues && c.bytes <= p.cfg.BatchChangeSizeBytes
}

// groupUnits groups one zone's units with provider.OwnershipGroups: a record and its ownership TXT
// always reach Route 53 in the same batch. Groups keep the order in which their first unit arrived.
func groupUnits(units []*unit, origins []origin) []group {
	names := make([]string, len(units))
	eps := make([]*endpoint.Endpoint, len(units))
	for i, u := range units {
		names[i], eps[i] = u.name, origins[u.origin].ep
	}
	var out []group
	for i, g := range provider.OwnershipGroups(names, eps) {
		if g == len(out) {
			out = append(out, nil)
		}
		out[g] = append(out[g], units[i])
	}
	return out
}

// pack groups the units and fills batches under the limits, groups whole. A group that alone exceeds
// a limit (thousands of changes at one name) is split unit by unit, with a warning: Route 53 could not
// take it in one request anyway.
func (p *Provider) pack(units []*unit, origins []origin) []batch {
	var out []batch
	var cur batch
	var used cost
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur, used = nil, cost{}
	}
	for _, g := range groupUnits(units, origins) {
		c := g.cost()
		if !p.fits(c) {
			p.log.Warn("A group of changes exceeds the Route 53 batch limits and is split", "name", g[0].name, "changes", c.changes, "values", c.values, "bytes", c.bytes)
			for _, u := range g {
				single := group{u}
				if uc := single.cost(); !p.fits(used.add(uc)) {
					flush()
				}
				cur = append(cur, single)
				used = used.add(single.cost())
			}
			continue
		}
		if !p.fits(used.add(c)) {
			flush()
		}
		cur = append(cur, g)
		used = used.add(c)
	}
	flush()
	return out
}

// changes lays out a batch in the order Route 53 needs: deletes first (a name is freed before it is
// reused, as when an A becomes a CNAME), then upserts, then creates. names[i] is the normalised name
// of the record change i came from (unit.name), for patch.
func (b batch) changes() (out []r53types.Change, names []string) {
	for _, action := range []r53types.ChangeAction{r53types.ChangeActionDelete, r53types.ChangeActionUpsert, r53types.ChangeActionCreate} {
		for _, g := range b {
			for _, u := range g {
				for _, ch := range u.changes {
					if ch.Action == action {
						out, names = append(out, ch), append(names, u.name)
					}
				}
			}
		}
	}
	return out, names
}

func (b batch) units() []*unit {
	var out []*unit
	for _, g := range b {
		out = append(out, g...)
	}
	return out
}
