package mirror

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// errResync ends a watch for the periodic full resync; it is not a failure.
var errResync = errors.New("periodic resync")

// follow watches the source from revision from and applies each response's events to the destination
// until the resync interval passes (errResync), the watch fails, or ctx ends. Stopping the watch for a
// resync (rather than running both) keeps the destination moving forward only: the full sync reads a
// newer revision and the next watch starts after it.
func (mi *Mirror) follow(ctx context.Context, from int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	ch := mi.src.Watch(wctx, mi.cfg.srcDir, clientv3.WithPrefix(), clientv3.WithRev(from))
	timer := time.NewTimer(mi.cfg.ResyncInterval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return errResync
		case resp, ok := <-ch:
			if !ok {
				return errors.New("source watch closed")
			}
			if resp.CompactRevision != 0 {
				return fmt.Errorf("source compacted past revision %d", resp.CompactRevision)
			}
			if err := resp.Err(); err != nil {
				return fmt.Errorf("source watch: %w", err)
			}
			if len(resp.Events) == 0 {
				continue
			}
			if err := mi.applyEvents(ctx, resp.Events); err != nil {
				return err
			}
		}
	}
}

// applyEvents writes one watch response's events. etcd delivers all events of a revision in one
// response, so a source transaction (zonekeeper writes one per name) lands in one destination
// transaction when it fits. The last event per key wins; a transaction may not name a key twice.
func (mi *Mirror) applyEvents(ctx context.Context, events []*clientv3.Event) error {
	last := map[string]*clientv3.Event{}
	for _, ev := range events {
		last[string(ev.Kv.Key)] = ev
	}
	var w writes
	for k, ev := range last {
		switch ev.Type {
		case clientv3.EventTypePut:
			dk, dv, ok, _ := mi.m.target(k, ev.Kv.Value)
			if ok {
				w.puts = append(w.puts, put{key: dk, value: dv})
			}
		case clientv3.EventTypeDelete:
			if dk, ok := mi.m.key(k); ok {
				w.deletes = append(w.deletes, dk)
			}
		}
	}
	if w.empty() {
		return nil
	}
	sort.Slice(w.puts, func(i, j int) bool { return w.puts[i].key < w.puts[j].key })
	sort.Strings(w.deletes)
	txns, err := apply(ctx, mi.dst, w, mi.cfg.MaxTxnOps, mi.cfg.Timeout)
	if err != nil {
		return err
	}
	mi.log.Debug("Mirrored source events", "revision", events[len(events)-1].Kv.ModRevision, "puts", len(w.puts), "deletes", len(w.deletes), "transactions", txns)
	return nil
}
