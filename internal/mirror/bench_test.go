package mirror

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

func benchMirror(b *testing.B, p *pair, mod func(*Config)) *Mirror {
	b.Helper()
	cfg := DefaultConfig()
	cfg.SrcDirectory, cfg.DstDirectory = "/skydns", "/external"
	cfg.Src.Endpoints, cfg.Dst.Endpoints = []string{p.src.Endpoint}, []string{p.dst.Endpoint}
	cfg.Delete = true
	rules, err := ParseRules([]byte(wanRules))
	if err != nil {
		b.Fatal(err)
	}
	cfg.Rules = rules
	if mod != nil {
		mod(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	m, err := New(cfg, p.sc, p.dc, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// A full sync of 10,000 keys into an empty destination: read, rewrite, compare, write in transactions
// of 128.
func BenchmarkFullSync10k(b *testing.B) {
	p := startPair(b)
	putMany(b, p.sc, generation(0, 10000, "a"))
	m := benchMirror(b, p, nil)
	ctx := context.Background()
	txns := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if _, err := p.dc.Delete(ctx, "/external/", clientv3.WithPrefix()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := m.Sync(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if res.Puts != 10000 {
			b.Fatalf("puts %d", res.Puts)
		}
		txns = res.Txns
	}
	b.ReportMetric(float64(txns), "txns/sync")
}

// The periodic resync when nothing drifted: two range reads and a compare, no writes.
func BenchmarkResyncInSync10k(b *testing.B) {
	p := startPair(b)
	putMany(b, p.sc, generation(0, 10000, "a"))
	m := benchMirror(b, p, nil)
	ctx := context.Background()
	if _, err := m.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := m.Sync(ctx)
		if err != nil || res.Puts+res.Deletes != 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// One source change to its destination write, through the watch (10,000 other keys present).
func BenchmarkEventToDestination(b *testing.B) {
	p := startPair(b)
	putMany(b, p.sc, generation(0, 10000, "a"))
	m := benchMirror(b, p, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = m.Run(ctx) }()
	wch := p.dc.Watch(ctx, "/external/com/example/bench/", clientv3.WithPrefix())
	// Wait for the initial sync to finish before timing.
	deadline := time.Now().Add(30 * time.Second)
	for len(getPrefix(b, p.dc, "/external/")) < 10000 {
		if time.Now().After(deadline) {
			b.Fatal("initial sync did not finish")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var total time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		start := time.Now()
		if _, err := p.sc.Put(ctx, "/skydns/com/example/bench/1", fmt.Sprintf(`{"host":"10.1.%d.%d","group":"%d"}`, i/250%250, i%250, i)); err != nil {
			b.Fatal(err)
		}
		select {
		case <-wch:
		case <-time.After(10 * time.Second):
			b.Fatal("the change did not reach the destination")
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(i), "µs/event")
}
