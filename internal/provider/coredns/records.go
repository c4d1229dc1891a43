package coredns

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Records implements provider.Provider. It reads the whole prefix in pages of PageSize keys, all at
// the revision of the first page so the listing is one consistent snapshot, and groups sibling keys
// into record sets with several targets.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	var entries []entry
	err := p.scan(ctx, p.layout.prefix, func(key string, value []byte) {
		e, ok := p.layout.decodeEntry(key, value)
		if ok && p.zones.contains(e.name) {
			entries = append(entries, e)
		}
	})
	if err != nil {
		return nil, err
	}
	return recordSets(entries), nil
}

// scan calls fn for every key under prefix, page by page at one revision.
func (p *Provider) scan(ctx context.Context, prefix string, fn func(key string, value []byte)) error {
	end := clientv3.GetPrefixRangeEnd(prefix)
	from := prefix
	var rev int64
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(int64(p.page))}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := p.get(ctx, from, opts...)
		if err != nil {
			return fmt.Errorf("etcd: read %s: %w", prefix, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			fn(string(kv.Key), kv.Value)
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// get is one range read bounded by the operation timeout.
func (p *Provider) get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	return p.client.Get(ctx, key, opts...)
}
