package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Mirror copies one etcd prefix to another and keeps it in step.
type Mirror struct {
	cfg      Config
	src, dst *clientv3.Client
	m        mapping
	log      *slog.Logger
}

// New returns a mirror over two etcd clients (they may be the same client when both prefixes are on
// one cluster). cfg must have passed Validate; cfg.Rules are used as they are.
func New(cfg Config, src, dst *clientv3.Client, log *slog.Logger) (*Mirror, error) {
	if cfg.srcDir == "" || cfg.dstDir == "" {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxTxnOps < 2 {
		cfg.MaxTxnOps = DefaultMaxTxnOps
	}
	if cfg.ResyncInterval <= 0 {
		cfg.ResyncInterval = DefaultResyncInterval
	}
	return &Mirror{cfg: cfg, src: src, dst: dst, m: newMapping(cfg), log: log}, nil
}

// SyncResult describes one full sync.
type SyncResult struct {
	// Revision is the source revision the sync copied; the watch continues after it.
	Revision int64
	// Source is the number of source keys read; Desired the number of destination keys wanted.
	Source, Desired int
	// Puts, Deletes and Txns are what was written to the destination.
	Puts, Deletes, Txns int
	// NotObject counts values copied unchanged because they are not JSON objects.
	NotObject int
	// DeletesHeld is the number of stale keys left in place because the source prefix was empty.
	DeletesHeld int
}

// errSameCluster is returned when both directories overlap on one etcd cluster.
var errSameCluster = errors.New("--src-directory and --dst-directory overlap on the same etcd cluster: the mirror would copy its own output")

// Sync reads the source prefix at one revision, computes the destination it implies, compares it with
// the destination and writes the difference: puts first, then (with Delete) the stale keys, in
// transactions of at most MaxTxnOps operations — one transaction when everything fits.
func (mi *Mirror) Sync(ctx context.Context) (SyncResult, error) {
	var res SyncResult
	src, err := readPrefix(ctx, mi.src, mi.cfg.srcDir, mi.cfg.Timeout)
	if err != nil {
		return res, fmt.Errorf("reading source %s: %w", mi.cfg.srcDir, err)
	}
	res.Revision, res.Source = src.revision, len(src.kvs)
	desired := make(map[string][]byte, len(src.kvs))
	for k, v := range src.kvs {
		dk, dv, ok, notObject := mi.m.target(k, v)
		if !ok {
			continue
		}
		if notObject && len(mi.cfg.Rules) > 0 {
			res.NotObject++
			mi.log.Debug("Value is not a JSON object; copied without rules", "key", k)
		}
		desired[dk] = dv
	}
	res.Desired = len(desired)
	dst, err := readPrefix(ctx, mi.dst, mi.cfg.dstDir, mi.cfg.Timeout)
	if err != nil {
		return res, fmt.Errorf("reading destination %s: %w", mi.cfg.dstDir, err)
	}
	if src.clusterID == dst.clusterID && src.clusterID != 0 && mi.m.overlaps() {
		return res, errSameCluster
	}
	w := diff(desired, dst.kvs, mi.cfg.Delete)
	if len(src.kvs) == 0 && len(w.deletes) > 0 {
		// An empty source is far more often a wrong --src-directory or a wiped etcd than a zone with
		// no names left; emptying the public view on that evidence alone is the outage to avoid.
		mi.log.Warn("Source prefix is empty; not deleting the destination's keys", "src", mi.cfg.srcDir, "dst", mi.cfg.dstDir, "keys", len(w.deletes))
		res.DeletesHeld = len(w.deletes)
		w.deletes = nil
	}
	for _, p := range w.puts {
		mi.log.Debug("Copy", "key", p.key, "value", string(p.value))
	}
	for _, d := range w.deletes {
		mi.log.Debug("Delete stale key", "key", d)
	}
	res.Puts, res.Deletes = len(w.puts), len(w.deletes)
	res.Txns, err = apply(ctx, mi.dst, w, mi.cfg.MaxTxnOps, mi.cfg.Timeout)
	if err != nil {
		return res, fmt.Errorf("writing destination %s: %w", mi.cfg.dstDir, err)
	}
	return res, nil
}

// Run syncs and then follows the source with a watch until ctx ends, re-syncing fully every
// ResyncInterval and after any watch or write failure (with backoff). It never gives up: errors are
// logged and retried. It returns nil when ctx ends.
func (mi *Mirror) Run(ctx context.Context) error {
	wait := time.Second
	for ctx.Err() == nil {
		res, err := mi.Sync(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			mi.log.Error("Mirror sync failed; retrying", "error", err.Error(), "retryIn", wait.String())
			if errors.Is(err, errSameCluster) {
				return err
			}
			sleep(ctx, wait)
			wait = min(2*wait, 10*time.Second)
			continue
		}
		mi.logSync(res)
		err = mi.follow(ctx, res.Revision+1)
		switch {
		case ctx.Err() != nil:
		case errors.Is(err, errResync):
			mi.log.Debug("Periodic full resync", "interval", mi.cfg.ResyncInterval.String())
			wait = time.Second
		default:
			mi.log.Warn("Watch ended; re-syncing", "error", err.Error())
			// A failed write must not turn into a tight loop against a broken destination; a watch
			// that merely ended (compaction, leader change) gets a short pause.
			sleep(ctx, wait)
			wait = min(2*wait, 10*time.Second)
		}
	}
	return nil
}

func (mi *Mirror) logSync(res SyncResult) {
	attrs := []any{"src", mi.cfg.srcDir, "dst", mi.cfg.dstDir, "revision", res.Revision, "sourceKeys", res.Source,
		"desiredKeys", res.Desired, "puts", res.Puts, "deletes", res.Deletes, "transactions", res.Txns}
	if res.NotObject > 0 {
		attrs = append(attrs, "notJSONObject", res.NotObject)
	}
	if res.Puts == 0 && res.Deletes == 0 {
		mi.log.Info("Mirror in sync: all keys are already up to date", attrs...)
		return
	}
	mi.log.Info("Mirror synced", attrs...)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
