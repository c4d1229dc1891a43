package mirror

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// The split-horizon copy: A and AAAA entries get the WAN address and TTL 900, CNAME and TXT ownership
// entries arrive byte for byte, ignored names and keys outside the directory stay behind.
func TestOnceCopiesWithRewrite(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc,
		"/skydns/com/example/www/1a2b3c4d", aValue,
		"/skydns/com/example/v6/00000001", aaaaValue,
		"/skydns/com/example/alias/5e6f7a8b", cnameValue,
		"/skydns/com/example/a-www/9c0d1e2f", txtValue,
		"/skydns/com/example/internal/db/1", aValue,
		"/skydns/com/example/internalx/1", aValue,
		"/skydns-internal/com/example/other/1", aValue,
		"/skydns/com/example/raw", "not json",
	)
	flags := append(p.baseFlags, "--ignore=/skydns/com/example/internal")
	code, log := runOnce(t, flags...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	expectPrefix(t, p.dc, "/", map[string]string{
		"/external/com/example/www/1a2b3c4d":   aWAN,
		"/external/com/example/v6/00000001":    aaaaWAN,
		"/external/com/example/alias/5e6f7a8b": cnameValue,
		"/external/com/example/a-www/9c0d1e2f": txtValue,
		"/external/com/example/internalx/1":    aWAN,
		"/external/com/example/raw":            "not json",
	}, time.Second)
	if !strings.Contains(log, "puts=6") || !strings.Contains(log, "transactions=1") {
		t.Errorf("log does not report 6 puts in one transaction:\n%s", log)
	}
	// A second run finds nothing to do.
	code, log = runOnce(t, flags...)
	if code != 0 || !strings.Contains(log, "all keys are already up to date") {
		t.Errorf("second run: exit %d\n%s", code, log)
	}
}

// Without --delete nothing is removed; with it, exactly the destination keys that have no source key,
// and nothing outside the destination directory.
func TestDeleteRemovesStaleKeys(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc, "/skydns/com/example/www/1", aValue, "/skydns/com/example/ign/1", aValue)
	putKV(t, p.dc,
		"/external/com/example/gone/1", aWAN,
		"/external/com/example/ign/1", aWAN,
		"/externals/keep", "x",
		"/other/keep", "y",
	)
	flags := append(p.baseFlags, "--ignore=/skydns/com/example/ign")
	if code, log := runOnce(t, flags...); code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	want := map[string]string{
		"/external/com/example/www/1":  aWAN,
		"/external/com/example/gone/1": aWAN,
		"/external/com/example/ign/1":  aWAN,
		"/externals/keep":              "x",
		"/other/keep":                  "y",
	}
	expectPrefix(t, p.dc, "/", want, time.Second)

	if code, log := runOnce(t, append(flags, "--delete")...); code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	delete(want, "/external/com/example/gone/1")
	delete(want, "/external/com/example/ign/1")
	expectPrefix(t, p.dc, "/", want, time.Second)
}

// An empty source is not taken as "delete everything": that is the public-view outage to avoid.
func TestDeleteHeldWhenSourceIsEmpty(t *testing.T) {
	p := startPair(t)
	putKV(t, p.dc, "/external/com/example/www/1", aWAN)
	code, log := runOnce(t, append(p.baseFlags, "--delete")...)
	if code != 0 || !strings.Contains(log, "Source prefix is empty") {
		t.Fatalf("exit %d\n%s", code, log)
	}
	expectPrefix(t, p.dc, "/", map[string]string{"/external/com/example/www/1": aWAN}, time.Second)
}

// Watch mode: puts, deletes and a multi-key source transaction reach the destination, rewritten.
func TestWatchPropagatesChanges(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc, "/skydns/com/example/www/1", aValue)
	runMirror(t, append(p.baseFlags, "--ignore=/skydns/com/example/private", "--log-level=debug")...)
	want := map[string]string{"/external/com/example/www/1": aWAN}
	expectPrefix(t, p.dc, "/external/", want, 10*time.Second)

	putKV(t, p.sc, "/skydns/com/example/api/1", aValue, "/skydns/com/example/private/1", aValue)
	want["/external/com/example/api/1"] = aWAN
	expectPrefix(t, p.dc, "/external/", want, 5*time.Second)

	delKey(t, p.sc, "/skydns/com/example/www/1")
	delete(want, "/external/com/example/www/1")
	expectPrefix(t, p.dc, "/external/", want, 5*time.Second)

	// One source transaction (a CNAME and its ownership TXT, as zonekeeper writes a name) arrives as is.
	_, err := p.sc.Txn(context.Background()).Then(
		clientv3.OpPut("/skydns/com/example/alias/1", cnameValue),
		clientv3.OpPut("/skydns/com/example/cname-alias/1", txtValue),
		clientv3.OpDelete("/skydns/com/example/api/1"),
	).Commit()
	if err != nil {
		t.Fatal(err)
	}
	delete(want, "/external/com/example/api/1")
	want["/external/com/example/alias/1"] = cnameValue
	want["/external/com/example/cname-alias/1"] = txtValue
	expectPrefix(t, p.dc, "/external/", want, 5*time.Second)
}

// The watch resumes after the source etcd restarts, and the periodic resync heals a destination key
// changed behind the mirror's back.
func TestSourceRestartAndResync(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc, "/skydns/com/example/www/1", aValue)
	r := runMirror(t, append(p.baseFlags, "--resync-interval=1s")...)
	want := map[string]string{"/external/com/example/www/1": aWAN}
	expectPrefix(t, p.dc, "/external/", want, 10*time.Second)

	p.src.Stop()
	time.Sleep(500 * time.Millisecond)
	if err := p.src.Start(); err != nil {
		t.Fatal(err)
	}
	putKV(t, p.sc, "/skydns/com/example/after/1", aValue)
	want["/external/com/example/after/1"] = aWAN
	expectPrefix(t, p.dc, "/external/", want, 15*time.Second)

	putKV(t, p.dc, "/external/com/example/www/1", `{"host":"198.51.100.1"}`)
	expectPrefix(t, p.dc, "/external/", want, 5*time.Second)
	select {
	case code := <-r.done:
		t.Fatalf("mirror exited with %d", code)
	default:
	}
}

// The destination being down does not lose changes: the mirror retries and re-syncs.
func TestDestinationOutage(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc, "/skydns/com/example/www/1", aValue)
	runMirror(t, p.baseFlags...)
	want := map[string]string{"/external/com/example/www/1": aWAN}
	expectPrefix(t, p.dc, "/external/", want, 10*time.Second)

	p.dst.Stop()
	putKV(t, p.sc, "/skydns/com/example/during/1", aValue)
	time.Sleep(time.Second)
	if err := p.dst.Start(); err != nil {
		t.Fatal(err)
	}
	want["/external/com/example/during/1"] = aWAN
	expectPrefix(t, p.dc, "/external/", want, 20*time.Second)
}

// A compacted source revision ends the watch with an error, so Run falls back to a full sync.
func TestWatchCompactedReturnsError(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc, "/skydns/a/1", aValue, "/skydns/a/1", aaaaValue, "/skydns/a/1", cnameValue)
	resp, err := p.sc.Get(context.Background(), "/skydns/a/1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.sc.Compact(context.Background(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.SrcDirectory, cfg.DstDirectory = "/skydns", "/external"
	cfg.Src.Endpoints, cfg.Dst.Endpoints = []string{p.src.Endpoint}, []string{p.dst.Endpoint}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg, p.sc, p.dc, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.follow(ctx, 2); err == nil || !strings.Contains(err.Error(), "compacted") {
		t.Fatalf("follow from a compacted revision: %v", err)
	}
}

// Both directories on one cluster, one inside the other: the mirror would feed on its own output.
func TestOverlappingDirectoriesOnOneClusterRefused(t *testing.T) {
	p := startPair(t)
	putKV(t, p.sc, "/skydns/com/example/www/1", aValue)
	code, log := runOnce(t, "--src-endpoints="+p.src.Endpoint, "--dst-endpoints="+p.src.Endpoint, "-s=/skydns", "-d=/skydns/public")
	if code != 1 || !strings.Contains(log, "overlap on the same etcd cluster") {
		t.Fatalf("exit %d\n%s", code, log)
	}
	// The same directories on two clusters are fine.
	code, log = runOnce(t, "--src-endpoints="+p.src.Endpoint, "--dst-endpoints="+p.dst.Endpoint, "-s=/skydns", "-d=/skydns")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	// And two disjoint directories on one cluster too (the usual /skydns-internal → /skydns).
	code, log = runOnce(t, "--src-endpoints="+p.src.Endpoint, "--dst-endpoints="+p.src.Endpoint, "-s=/skydns", "-d=/skydns-public")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if got := getPrefix(t, p.sc, "/skydns-public/"); got["/skydns-public/com/example/www/1"] != aValue {
		t.Errorf("copied %v", got)
	}
}

func TestUnreachableSourceFailsOnce(t *testing.T) {
	p := startPair(t)
	p.src.Stop()
	code, log := runOnce(t, append(p.baseFlags, "--etcd-timeout=1s")...)
	if code != 1 || !strings.Contains(log, "reading source") {
		t.Fatalf("exit %d\n%s", code, log)
	}
	if strings.Contains(log, "panic") {
		t.Fatal(log)
	}
}
