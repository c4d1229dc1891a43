package coredns

import (
	"context"
	"errors"
	"fmt"
	"sort"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// nameWork is the etcd operations for one name; they always travel in one transaction.
type nameWork struct {
	state   *nameState
	puts    []keyValue
	deletes []string
}

func (w *nameWork) size() int { return len(w.puts) + len(w.deletes) }

func (w *nameWork) ops() []clientv3.Op {
	ops := make([]clientv3.Op, 0, w.size())
	for _, k := range w.deletes {
		ops = append(ops, clientv3.OpDelete(k)) // exact key: no WithPrefix, so www never takes www1 along
	}
	for _, kv := range w.puts {
		ops = append(ops, clientv3.OpPut(kv.key, string(kv.value)))
	}
	return ops
}

// failedName is a name whose transaction etcd refused or could not confirm.
type failedName struct {
	work *nameWork
	err  error
}

// commit writes the work in transactions of whole names, packed up to MaxTxnOps operations. A
// transaction etcd rejects as a bad request is split into one transaction per name. When etcd cannot
// be reached, the remaining names fail with that error; if nothing was written at all, the error is
// returned instead, meaning "nothing applied".
func (p *Provider) commit(ctx context.Context, work []*nameWork) ([]failedName, error) {
	var failed []failedName
	written := false
	batches := p.pack(work)
	for bi, batch := range batches {
		err := p.commitBatch(ctx, batch)
		if err == nil {
			written = true
			continue
		}
		if !isRequestError(err) {
			if !written {
				return nil, fmt.Errorf("etcd: write records: %w", err)
			}
			for _, rest := range batches[bi:] {
				for _, w := range rest {
					failed = append(failed, failedName{w, fmt.Errorf("etcd: %w", err)})
				}
			}
			return failed, nil
		}
		if len(batch) == 1 {
			failed = append(failed, failedName{batch[0], fmt.Errorf("etcd refused the transaction: %w", err)})
			continue
		}
		for _, w := range batch {
			if err := p.commitBatch(ctx, []*nameWork{w}); err != nil {
				failed = append(failed, failedName{w, fmt.Errorf("etcd refused the transaction: %w", err)})
				continue
			}
			written = true
		}
	}
	return failed, nil
}

func (p *Provider) commitBatch(ctx context.Context, batch []*nameWork) error {
	var ops []clientv3.Op
	for _, w := range batch {
		ops = append(ops, w.ops()...)
	}
	_, err := p.txn(ctx, ops)
	return err
}

// pack groups names into batches of at most MaxTxnOps operations, never splitting a name.
func (p *Provider) pack(work []*nameWork) [][]*nameWork {
	var batches [][]*nameWork
	var cur []*nameWork
	n := 0
	for _, w := range work {
		if n+w.size() > p.maxOps && len(cur) > 0 {
			batches = append(batches, cur)
			cur, n = nil, 0
		}
		cur = append(cur, w)
		n += w.size()
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return batches
}

// isRequestError reports errors about the request itself (too many operations, too large, duplicate
// keys), which another split of the same work may avoid, as opposed to etcd being unreachable.
func isRequestError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var coded interface{ Code() codes.Code }
	code := codes.Unknown
	if errors.As(err, &coded) {
		code = coded.Code()
	} else if s, ok := status.FromError(err); ok {
		code = s.Code()
	}
	switch code {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.ResourceExhausted, codes.OutOfRange:
		return true
	}
	return false
}

func sortStrings(s []string) { sort.Strings(s) }
