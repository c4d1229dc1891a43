package mirror

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// pageSize is how many keys one range read returns; the pages of one snapshot are all read at the
// revision of the first, so they form one consistent view.
const pageSize = 2000

// snapshot is the content of a prefix at one revision.
type snapshot struct {
	kvs       map[string][]byte
	revision  int64
	clusterID uint64
}

// readPrefix reads every key under prefix at one revision, page by page.
func readPrefix(ctx context.Context, c *clientv3.Client, prefix string, timeout time.Duration) (snapshot, error) {
	s := snapshot{kvs: map[string][]byte{}}
	end := clientv3.GetPrefixRangeEnd(prefix)
	from := prefix
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(pageSize)}
		if s.revision > 0 {
			opts = append(opts, clientv3.WithRev(s.revision))
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		resp, err := c.Get(cctx, from, opts...)
		cancel()
		if err != nil {
			return s, err
		}
		if s.revision == 0 {
			s.revision = resp.Header.Revision
			s.clusterID = resp.Header.ClusterId
		}
		for _, kv := range resp.Kvs {
			s.kvs[string(kv.Key)] = kv.Value
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return s, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}
