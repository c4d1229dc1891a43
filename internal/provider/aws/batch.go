package aws

import (
	"strings"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
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

// groupUnits groups one zone's units. Units at the same name are one group. An ownership TXT joins
// the group of the record it guards: the TXT registry labels a TXT it creates or updates with
// ownedRecord=<record name>; a TXT being deleted comes from a listing without labels, so it joins a
// record of the same call whose resource label its value names ("external-dns/resource=…") and whose
// first label its name contains (a-www, prefix_cname-www, www-suffix, …). Groups keep the order in
// which their first unit arrived.
func groupUnits(units []*unit, origins []origin) []group {
	parent := make([]int, len(units))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if ra < rb {
			parent[rb] = ra
		} else {
			parent[ra] = rb
		}
	}
	byName := map[string]int{}
	byResource := map[string][]int{}
	for i, u := range units {
		if j, ok := byName[u.name]; ok {
			union(i, j)
		} else {
			byName[u.name] = i
		}
		ep := origins[u.origin].ep
		if u.rtype != endpoint.RecordTypeTXT {
			if r := ep.Labels[endpoint.ResourceLabelKey]; r != "" {
				byResource[r] = append(byResource[r], i)
			}
		}
	}
	for i, u := range units {
		if u.rtype != endpoint.RecordTypeTXT {
			continue
		}
		ep := origins[u.origin].ep
		if owned := ep.Labels[endpoint.OwnedRecordLabelKey]; owned != "" {
			if j, ok := byName[normName(owned)]; ok {
				union(i, j)
			}
			continue
		}
		for _, r := range resourcesIn(ep.Targets) {
			for _, j := range byResource[r] {
				if strings.Contains(u.name, firstLabel(units[j].name)) {
					union(i, j)
				}
			}
		}
	}
	index := map[int]int{}
	var out []group
	for i, u := range units {
		root := find(i)
		gi, ok := index[root]
		if !ok {
			gi = len(out)
			index[root] = gi
			out = append(out, nil)
		}
		out[gi] = append(out[gi], u)
	}
	return out
}

// resourcesIn finds "external-dns/resource=<kind/ns/name>" in ownership TXT targets.
func resourcesIn(targets []string) []string {
	var out []string
	for _, t := range targets {
		const key = "external-dns/resource="
		i := strings.Index(t, key)
		if i < 0 {
			continue
		}
		r := t[i+len(key):]
		if j := strings.IndexAny(r, `,"`); j >= 0 {
			r = r[:j]
		}
		out = append(out, r)
	}
	return out
}

func firstLabel(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
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
// reused, as when an A becomes a CNAME), then upserts, then creates.
func (b batch) changes() []r53types.Change {
	var out []r53types.Change
	for _, action := range []r53types.ChangeAction{r53types.ChangeActionDelete, r53types.ChangeActionUpsert, r53types.ChangeActionCreate} {
		for _, g := range b {
			for _, u := range g {
				for _, ch := range u.changes {
					if ch.Action == action {
						out = append(out, ch)
					}
				}
			}
		}
	}
	return out
}

func (b batch) units() []*unit {
	var out []*unit
	for _, g := range b {
		out = append(out, g...)
	}
	return out
}
