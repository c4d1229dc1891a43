package google

import (
	"context"
	"slices"
	"strings"

	dns "google.golang.org/api/dns/v1"
)

// submitZone sends a zone's items in Changes of at most --google-batch-change-size additions plus
// deletions, pausing --google-batch-change-interval between two. Items that ask for what the zone
// already holds are not sent. Any failure other than a refusal stops the zone and is returned: a
// Change is one transaction, so the failed one changed nothing, and those before it are applied and
// remembered.
func (p *Provider) submitZone(ctx context.Context, z zone, items []*item, refused func(*item, error)) error {
	for i, batch := range p.batches(z, items) {
		if i > 0 && p.cfg.BatchChangeInterval > 0 {
			if err := sleepCtx(ctx, p.cfg.BatchChangeInterval); err != nil {
				return err
			}
		}
		if err := p.submit(ctx, z, batch, false, refused); err != nil {
			return err
		}
	}
	return nil
}

// batches packs the items that change something, by name, into batches of at most the batch size
// of additions plus deletions; the items of one name stay together (a name with more than the
// batch size of its own is sent alone).
func (p *Provider) batches(z zone, items []*item) [][]*item {
	byName := map[string][]*item{}
	size := map[string]int{}
	for _, it := range items {
		cur := p.stored(z, it.key)
		if sameSet(cur, it.want) {
			continue
		}
		byName[it.key.name] = append(byName[it.key.name], it)
		if cur != nil {
			size[it.key.name]++
		}
		if it.want != nil {
			size[it.key.name]++
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	var out [][]*item
	var cur []*item
	n := 0
	for _, name := range names {
		if n > 0 && n+size[name] > p.cfg.BatchChangeSize {
			out, cur, n = append(out, cur), nil, 0
		}
		cur = append(cur, byName[name]...)
		n += size[name]
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// submit sends items as one Change. When Cloud DNS answers that the zone moved since it was listed
// (412 conditionNotMet, 409 alreadyExists, 404), the zone is listed again and the Change rebuilt from
// what is there, once. When it refuses the Change for its content (or again after the relisting), the
// two halves are sent in turn, each bisected again when refused, so k refused sets among n cost
// about 2k·log2(n) calls and every other set is applied; a single refused item is reported through
// refused.
func (p *Provider) submit(ctx context.Context, z zone, items []*item, relisted bool, refused func(*item, error)) error {
	ch := p.changeOf(z, items)
	if len(ch.Additions) == 0 && len(ch.Deletions) == 0 {
		return nil
	}
	res, err := p.svc.Changes.Create(p.project, z.name, ch).Context(ctx).Do()
	if err == nil {
		p.remember(z, items)
		p.ownChange(z, res.Id)
		return nil
	}
	err = describeError(err)
	if stale(err) && !relisted {
		p.log.Info("Cloud DNS refused a change planned on an old listing; listing the zone again", "zone", z.name, "error", err.Error())
		sets, lerr := p.listSets(ctx, z)
		if lerr != nil {
			return lerr
		}
		p.mu.Lock()
		if p.sets != nil {
			p.sets[z.name] = sets
		}
		if p.latest != nil {
			p.latest[z.name] = "" // someone else's Change: the next probe lists the zone again
		}
		p.mu.Unlock()
		return p.submit(ctx, z, items, true, refused)
	}
	if !refusal(err) {
		return err
	}
	if len(items) == 1 {
		refused(items[0], err)
		return nil
	}
	mid := len(items) / 2
	p.log.Debug("Cloud DNS refused a change; bisecting", "zone", z.name, "recordSets", len(items), "error", err.Error())
	if err := p.submit(ctx, z, items[:mid], relisted, refused); err != nil {
		return err
	}
	return p.submit(ctx, z, items[mid:], relisted, refused)
}

// changeOf is the Change that makes the zone hold what the items want: the stored set deleted (as
// stored, which a deletion must match exactly) and the wanted one added, per item that changes
// something.
func (p *Provider) changeOf(z zone, items []*item) *dns.Change {
	ch := &dns.Change{}
	for _, it := range items {
		cur := p.stored(z, it.key)
		if sameSet(cur, it.want) {
			continue
		}
		if cur != nil {
			ch.Deletions = append(ch.Deletions, cur)
		}
		if it.want != nil {
			ch.Additions = append(ch.Additions, it.want)
		}
	}
	slices.SortFunc(ch.Deletions, byKey)
	slices.SortFunc(ch.Additions, byKey)
	return ch
}

func byKey(a, b *dns.ResourceRecordSet) int {
	if c := strings.Compare(normName(a.Name), normName(b.Name)); c != 0 {
		return c
	}
	return strings.Compare(a.Type, b.Type)
}

// stored is the zone's set k as last listed or written, nil for none.
func (p *Provider) stored(z zone, k setKey) *dns.ResourceRecordSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sets[z.name][k]
}

// remember brings the zone's sets up to date with an applied Change.
func (p *Provider) remember(z zone, items []*item) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.sets[z.name]
	if m == nil {
		return
	}
	for _, it := range items {
		if it.want == nil {
			delete(m, it.key)
		} else {
			m[it.key] = it.want
		}
	}
}
