package mirror

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// maxTxnBytes keeps one transaction well under etcd's default --max-request-bytes (1.5 MiB).
const maxTxnBytes = 1 << 20

// put is one destination write.
type put struct {
	key   string
	value []byte
}

// writes is what one sync or one batch of events changes at the destination.
type writes struct {
	puts    []put
	deletes []string
}

func (w writes) empty() bool { return len(w.puts) == 0 && len(w.deletes) == 0 }

func (w writes) bytes() int {
	n := 0
	for _, p := range w.puts {
		n += len(p.key) + len(p.value) + 16
	}
	for _, d := range w.deletes {
		n += len(d) + 16
	}
	return n
}

// batches splits the writes into transactions. When everything fits in one (maxOps operations,
// maxTxnBytes bytes) it is one transaction: readers see the old state or the new one. Otherwise the
// puts come first, in batches, and the deletes after all of them, so a reader never sees a key missing
// that is in both the old and the new state, and never sees fewer keys than the smaller of the two.
func (w writes) batches(maxOps int) [][]clientv3.Op {
	if w.empty() {
		return nil
	}
	if len(w.puts)+len(w.deletes) <= maxOps && w.bytes() <= maxTxnBytes {
		ops := make([]clientv3.Op, 0, len(w.puts)+len(w.deletes))
		for _, p := range w.puts {
			ops = append(ops, clientv3.OpPut(p.key, string(p.value)))
		}
		for _, d := range w.deletes {
			ops = append(ops, clientv3.OpDelete(d))
		}
		return [][]clientv3.Op{ops}
	}
	var out [][]clientv3.Op
	var cur []clientv3.Op
	size := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur, size = nil, 0
	}
	add := func(op clientv3.Op, n int) {
		if len(cur) >= maxOps || (len(cur) > 0 && size+n > maxTxnBytes) {
			flush()
		}
		cur = append(cur, op)
		size += n
	}
	for _, p := range w.puts {
		add(clientv3.OpPut(p.key, string(p.value)), len(p.key)+len(p.value)+16)
	}
	// Deletes never share a transaction with puts when there is more than one: every put must be
	// visible before the first stale key goes.
	flush()
	for _, d := range w.deletes {
		add(clientv3.OpDelete(d), len(d)+16)
	}
	flush()
	return out
}

// apply commits the writes in order and returns how many transactions it took.
func apply(ctx context.Context, c *clientv3.Client, w writes, maxOps int, timeout time.Duration) (int, error) {
	txns := 0
	for _, ops := range w.batches(maxOps) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		_, err := c.Txn(cctx).Then(ops...).Commit()
		cancel()
		if err != nil {
			return txns, fmt.Errorf("destination transaction %d (%d operations): %w", txns+1, len(ops), err)
		}
		txns++
	}
	return txns, nil
}
