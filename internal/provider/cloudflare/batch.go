package cloudflare

import (
	"context"
	"time"

	"github.com/cloudflare/cloudflare-go/v7/dns"
)

// submitZone sends a zone's ops in chunks of --batch-change-size, pausing --batch-change-interval
// between two. A chunk the API refuses is bisected (refused reports each op it refuses). Any other
// failure stops the zone and is returned: a batch is one transaction, so the failed chunk changed
// nothing, and the chunks before it are applied and recorded.
func (p *Provider) submitZone(ctx context.Context, z zone, ops []op, refused func(op, error)) error {
	size := p.cfg.BatchChangeSize
	for start := 0; start < len(ops); start += size {
		if start > 0 && p.cfg.BatchChangeInterval > 0 {
			t := time.NewTimer(p.cfg.BatchChangeInterval)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		if err := p.submit(ctx, z, ops[start:min(start+size, len(ops))], refused); err != nil {
			return err
		}
	}
	return nil
}

// submit sends ops as one batch. When the API refuses it, the two halves are sent in turn (each
// bisected again when refused), so that k refused records among n cost about 2k·log2(n) calls and
// every other record is applied; a single refused op is sent alone through the record's own
// endpoint, whose answer names the problem (and which works when the batch endpoint does not).
func (p *Provider) submit(ctx context.Context, z zone, ops []op, refused func(op, error)) error {
	if len(ops) == 0 {
		return nil
	}
	if len(ops) == 1 {
		return p.submitOne(ctx, z, ops[0], refused)
	}
	var params dns.RecordBatchParams
	params.ZoneID.Value, params.ZoneID.Present = z.id, true
	var deletes []dns.RecordBatchParamsDelete
	var puts []dns.BatchPutUnionParam
	var posts []dns.RecordBatchParamsPostUnion
	for _, o := range ops {
		switch o.kind {
		case opDelete:
			var d dns.RecordBatchParamsDelete
			d.ID.Value, d.ID.Present = o.id, true
			deletes = append(deletes, d)
		case opPut:
			puts = append(puts, putParam(o.id, o.w))
		case opPost:
			posts = append(posts, postParam(o.w))
		}
	}
	if len(deletes) > 0 {
		params.Deletes.Value, params.Deletes.Present = deletes, true
	}
	if len(puts) > 0 {
		params.Puts.Value, params.Puts.Present = puts, true
	}
	if len(posts) > 0 {
		params.Posts.Value, params.Posts.Present = posts, true
	}
	res, err := p.client.DNS.Records.Batch(ctx, params)
	if err == nil {
		p.recordBatch(z, ops, res)
		return nil
	}
	if err = describeError(err); !refusal(err) {
		return err
	}
	mid := len(ops) / 2
	p.log.Debug("Cloudflare refused a batch; bisecting", "zone", z.name, "records", len(ops), "error", err.Error())
	if err := p.submit(ctx, z, ops[:mid], refused); err != nil {
		return err
	}
	return p.submit(ctx, z, ops[mid:], refused)
}

// submitOne sends one op through the record's own endpoint.
func (p *Provider) submitOne(ctx context.Context, z zone, o op, refused func(op, error)) error {
	var err error
	switch o.kind {
	case opDelete:
		var params dns.RecordDeleteParams
		params.ZoneID.Value, params.ZoneID.Present = z.id, true
		_, err = p.client.DNS.Records.Delete(ctx, o.id, params)
		if err = describeError(err); err == nil || notFound(err) {
			p.forget(z, o.id) // gone already is what was asked
			if err == nil {
				p.countOwn(z, -1)
			}
			return nil
		}
	case opPut:
		var r *dns.RecordResponse
		params := dns.RecordUpdateParams{Body: updateBody(o.w)}
		params.ZoneID.Value, params.ZoneID.Present = z.id, true
		r, err = p.client.DNS.Records.Update(ctx, o.id, params)
		if err = describeError(err); err == nil {
			p.forget(z, o.id)
			p.remember(z, *r)
			return nil
		}
	case opPost:
		var r *dns.RecordResponse
		params := dns.RecordNewParams{Body: newBody(o.w)}
		params.ZoneID.Value, params.ZoneID.Present = z.id, true
		r, err = p.client.DNS.Records.New(ctx, params)
		if err = describeError(err); err == nil {
			p.remember(z, *r)
			p.countOwn(z, 1)
			return nil
		}
	}
	if !refusal(err) {
		return err
	}
	refused(o, err)
	return nil
}

// recordBatch brings the zone's index up to date with an applied batch. The answer lists the records
// written; without them the index is dropped, and the next call lists the zone again.
func (p *Provider) recordBatch(z zone, ops []op, res *dns.RecordBatchResponse) {
	var nPuts, nPosts, nDeletes int
	for _, o := range ops {
		switch o.kind {
		case opDelete:
			p.forget(z, o.id)
			nDeletes++
		case opPut:
			nPuts++
		case opPost:
			nPosts++
		}
	}
	if res == nil || len(res.Puts) != nPuts || len(res.Posts) != nPosts {
		p.Invalidate()
		return
	}
	p.countOwn(z, nPosts-nDeletes)
	for _, o := range ops {
		if o.kind == opPut {
			p.forget(z, o.id)
		}
	}
	for _, r := range append(append([]dns.RecordResponse(nil), res.Puts...), res.Posts...) {
		p.remember(z, r)
	}
}

func (p *Provider) forget(z zone, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if x := p.index[z.id]; x != nil {
		x.remove(id)
	}
}

func (p *Provider) remember(z zone, r dns.RecordResponse) {
	s, ok := storedOf(r)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if x := p.index[z.id]; x != nil {
		x.add(s)
	}
}
