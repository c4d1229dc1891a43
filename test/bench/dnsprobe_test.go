package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/builtin"
)

// startBuiltin serves example.com from zonekeeper's built-in DNS server on loopback, written through
// the builtin provider as zonekeeper writes it.
func startBuiltin(t *testing.T) (*builtin.Provider, dnsProbe) {
	t.Helper()
	srv, err := dnsserver.New(dnsserver.Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{"example.com"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	p, err := builtin.New(srv, "default")
	if err != nil {
		t.Fatal(err)
	}
	return p, newDNSProbe(srv.Addrs()[0])
}

func probeName(k int) (string, string) {
	return fmt.Sprintf("n%04d.example.com", k), fmt.Sprintf("10.0.%d.%d", k/250, k%250+1)
}

func createNames(t *testing.T, p *builtin.Provider, from, to int) {
	t.Helper()
	var c plan.Changes
	for k := from; k < to; k++ {
		host, ip := probeName(k)
		c.Create = append(c.Create, endpoint.NewWithTTL(host, "A", 60, ip))
	}
	if err := p.ApplyChanges(context.Background(), &c); err != nil {
		t.Fatal(err)
	}
}

func alwaysAlive() error { return nil }

// checkedUnder returns a progress function for awaitAllAnswered that notes the serial of each full
// check it starts, and what it noted; then, if not nil, runs at each start.
func checkedUnder(then func()) (func(string), func() []uint32) {
	var mu sync.Mutex
	var serials []uint32
	progress := func(msg string) {
		var s uint32
		if _, err := fmt.Sscanf(msg, "serial %d: checking", &s); err != nil {
			return
		}
		mu.Lock()
		serials = append(serials, s)
		mu.Unlock()
		if then != nil {
			then()
		}
	}
	return progress, func() []uint32 {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(serials)
	}
}

// The watcher sees each batch's serial, and awaitAllAnswered returns only once the last of three
// batches is served, under that batch's serial. Whether that is exact depends on when the last batch
// lands: during the check that finds every name (which it may, on a loaded machine) or before it.
func TestAwaitAllAnsweredWaitsForTheLastBatch(t *testing.T) {
	p, probe := startBuiltin(t)
	w := watchSerial(probe, "example.com", 5*time.Millisecond, nil)
	defer w.stop()
	const n = 3000
	go func() {
		for b := 0; b < 3; b++ {
			time.Sleep(100 * time.Millisecond)
			createNames(t, p, b*n/3, (b+1)*n/3)
		}
	}()
	progress, checks := checkedUnder(nil)
	conv, err := awaitAllAnswered(probe, w, n, probeName, 10*time.Second, alwaysAlive, progress)
	if err != nil {
		t.Fatal(err)
	}
	h := w.history()
	if len(h) != 4 {
		t.Fatalf("serials seen: %+v, want the server's first and one per batch", h)
	}
	under := checks()
	if len(under) == 0 {
		t.Fatalf("converged at %+v without a full check", conv)
	}
	last := under[len(under)-1]
	if conv.At.Serial != h[3].Serial || conv.Exact != (last == h[3].Serial) {
		t.Errorf("converged at %+v after a check under serial %d, want the last batch's serial %d, exact only if checked under it", conv, last, h[3].Serial)
	}
	if conv.Checks < 1 || conv.Questions < n {
		t.Errorf("checks %d, questions %d: the names were not all asked for", conv.Checks, conv.Questions)
	}
}

// A batch served while the check that finds every name runs makes the result inexact: the names were
// all answered by the new serial, but perhaps already under the one checked.
func TestAwaitAllAnsweredInexactWhenTheSerialMovesDuringTheCheck(t *testing.T) {
	p, probe := startBuiltin(t)
	const n = 1000
	createNames(t, p, 0, n)
	w := watchSerial(probe, "example.com", 5*time.Millisecond, nil)
	defer w.stop()
	var once sync.Once
	progress, checks := checkedUnder(func() {
		once.Do(func() {
			before, changed, _ := w.latest()
			createNames(t, p, n, n+1)
			select {
			case <-changed:
			case <-time.After(5 * time.Second):
				t.Errorf("the watcher did not see the serial move from %d", before.Serial)
			}
		})
	})
	conv, err := awaitAllAnswered(probe, w, n, probeName, 10*time.Second, alwaysAlive, progress)
	if err != nil {
		t.Fatal(err)
	}
	h := w.history()
	if len(h) != 2 || fmt.Sprint(checks()) != fmt.Sprint([]uint32{h[0].Serial}) {
		t.Fatalf("serials seen %+v, checks under %v: want one check under the first of two", h, checks())
	}
	if conv.At.Serial != h[1].Serial || conv.Exact {
		t.Errorf("converged at %+v, want serial %d, not exact", conv, h[1].Serial)
	}
}

// A name answered with another address, or not at all, is unanswered, and the message says what it got.
func TestUnansweredNamesTheWrongAddress(t *testing.T) {
	p, probe := startBuiltin(t)
	createNames(t, p, 0, 10)
	miss, first, err := probe.unanswered([]int{0, 3, 9, 12}, func(k int) (string, string) {
		host, ip := probeName(k)
		if k == 3 {
			ip = "192.0.2.1"
		}
		return host, ip
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(miss) != "[3 12]" || !strings.Contains(first, "want") {
		t.Errorf("unanswered %v (%q), want [3 12] with what was served", miss, first)
	}
	if _, err := awaitAllAnswered(probe, watchSerial(probe, "example.com", 5*time.Millisecond, nil), 13, probeName, 300*time.Millisecond, alwaysAlive, func(string) {}); err == nil ||
		!strings.Contains(err.Error(), "not within") {
		t.Errorf("13 names of which 10 are served: %v", err)
	}
}

// awaitAddress returns when the new address is served, not before.
func TestAwaitAddressReturnsWhenTheUpdateIsServed(t *testing.T) {
	p, probe := startBuiltin(t)
	createNames(t, p, 0, 1)
	host, old := probeName(0)
	var applied time.Time
	go func() {
		time.Sleep(50 * time.Millisecond)
		applied = time.Now()
		c := &plan.Changes{
			UpdateOld: []*endpoint.Endpoint{endpoint.NewWithTTL(host, "A", 60, old)},
			UpdateNew: []*endpoint.Endpoint{endpoint.NewWithTTL(host, "A", 60, "172.16.0.1")},
		}
		if err := p.ApplyChanges(context.Background(), c); err != nil {
			t.Error(err)
		}
	}()
	conn, err := probe.dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	at, err := probe.awaitAddress(conn, host, "172.16.0.1", 5*time.Second, alwaysAlive)
	if err != nil {
		t.Fatal(err)
	}
	if at.Before(applied) {
		t.Errorf("answered at %s, before the update was applied at %s", at, applied)
	}
	if _, err := probe.awaitAddress(conn, host, "172.16.0.2", 50*time.Millisecond, alwaysAlive); err == nil || !strings.Contains(err.Error(), "172.16.0.1") {
		t.Errorf("an address never served: %v", err)
	}
}
