package publicip

import (
	"context"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The must-show case: the echo server's answer changes; the next refresh publishes it, once.
func TestDiscovererFollowsChangeWithinOneRefresh(t *testing.T) {
	echo := startEchoServer(t, "203.0.113.1\n")
	log, logs := newTestLogger()
	d := mustNew(t, Config{EchoURL: echo.URL, Logger: log})
	sub := subscribe(d)

	a := mustRefresh(t, d)
	if a.V4.String() != "203.0.113.1" || a.Source != "http "+echo.URL {
		t.Fatalf("got %s from %q", a, a.Source)
	}
	if got := sub.Next(t); got.V4 != a.V4 {
		t.Fatalf("notified %s", got)
	}
	since := a.Since

	// Refreshes that find the same address tell nobody and keep Since.
	for range 3 {
		if b := mustRefresh(t, d); b.Since != since {
			t.Fatalf("Since moved from %v to %v without a change", since, b.Since)
		}
	}
	sub.None(t)

	echo.Set(http.StatusOK, "203.0.113.2")
	b := mustRefresh(t, d)
	if b.V4.String() != "203.0.113.2" {
		t.Fatalf("after one refresh: %s", b)
	}
	if got := sub.Next(t); got.V4.String() != "203.0.113.2" {
		t.Fatalf("notified %s", got)
	}
	sub.None(t)
	if n := len(logs.Lines(`msg="Public address in force"`)); n != 2 {
		t.Fatalf("%d 'Public address in force' lines, want 2 (one per change):\n%s", n, logs)
	}
	if l := logs.Lines(`msg="Public address in force"`, "address=203.0.113.2", `source="http `+echo.URL+`"`, "previous=203.0.113.1"); len(l) != 1 {
		t.Fatalf("no line naming the new address, its source and the previous one:\n%s", logs)
	}
}

// The refresh loop drives lookups by itself.
func TestDiscovererRefreshLoop(t *testing.T) {
	echo := startEchoServer(t, "203.0.113.1")
	d := mustNew(t, Config{EchoURL: echo.URL, RefreshInterval: 10 * time.Millisecond})
	sub := subscribe(d)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.Start(ctx)
	if a, ok := d.Current(); !ok || a.V4.String() != "203.0.113.1" {
		t.Fatalf("Start returned before the first lookup: %v %v", a, ok)
	}
	sub.Next(t)
	echo.Set(http.StatusOK, "203.0.113.2")
	if got := sub.Next(t); got.V4.String() != "203.0.113.2" {
		t.Fatalf("notified %s", got)
	}
	// Many refreshes later, still exactly one notification per change.
	n := echo.Requests()
	for echo.Requests() < n+5 {
		time.Sleep(5 * time.Millisecond)
	}
	sub.None(t)
}

// The must-show case: a static value replaced; the change is published at once, not at the next tick.
func TestDiscovererSetStatic(t *testing.T) {
	d := mustNew(t, Config{Static: []netip.Addr{netip.MustParseAddr("203.0.113.1"), netip.MustParseAddr("2001:db8::1")}, RefreshInterval: time.Hour})
	sub := subscribe(d)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.Start(ctx)
	if a := sub.Next(t); a.V4.String() != "203.0.113.1" || a.V6.String() != "2001:db8::1" || a.Source != "static" {
		t.Fatalf("got %s from %q", a, a.Source)
	}
	if err := d.SetStatic(netip.MustParseAddr("203.0.113.2")); err != nil {
		t.Fatal(err)
	}
	a := sub.Next(t)
	if a.V4.String() != "203.0.113.2" || a.V6.IsValid() {
		t.Fatalf("after SetStatic: %s", a)
	}
	if err := d.SetStatic(netip.MustParseAddr("203.0.113.3"), netip.MustParseAddr("203.0.113.4")); err == nil {
		t.Fatal("two IPv4 addresses accepted")
	}
	if err := mustNew(t, Config{STUNServer: "127.0.0.1:1"}).SetStatic(netip.MustParseAddr("203.0.113.2")); err == nil {
		t.Fatal("SetStatic without a static source accepted")
	}
}

// The must-show case: garbage from the echo server is rejected with a clear line and the last good
// address stays.
func TestDiscovererKeepsLastGoodOnGarbage(t *testing.T) {
	echo := startEchoServer(t, "203.0.113.1")
	log, logs := newTestLogger()
	m := &recordingMetrics{}
	d := mustNew(t, Config{EchoURL: echo.URL, Logger: log, Metrics: m})
	sub := subscribe(d)
	mustRefresh(t, d)
	sub.Next(t)

	echo.Set(http.StatusOK, "<html>captive portal</html>")
	a := mustRefresh(t, d)
	if a.V4.String() != "203.0.113.1" {
		t.Fatalf("garbage replaced the address: %s", a)
	}
	sub.None(t)
	want := []string{"level=WARN", `msg="Public address lookup failed"`, `source="http ` + echo.URL + `"`,
		`reason="answered \"<html>captive portal</html>\", which is not an IP address"`, `keeping="203.0.113.1 from http ` + echo.URL + `"`}
	if l := logs.Lines(want...); len(l) != 1 {
		t.Fatalf("want one line with %q, log:\n%s", want, logs)
	}
	if n := m.Failures("http " + echo.URL); n != 1 {
		t.Fatalf("%d failures counted", n)
	}

	// The same failure again is counted but logged at debug level only.
	mustRefresh(t, d)
	if n := m.Failures("http " + echo.URL); n != 2 {
		t.Fatalf("%d failures counted", n)
	}
	if l := logs.Lines("level=WARN", "Public address lookup failed"); len(l) != 1 {
		t.Fatalf("a repeated failure was logged at WARN again:\n%s", logs)
	}

	// Recovery is logged; the same address is no change.
	echo.Set(http.StatusOK, "203.0.113.1")
	mustRefresh(t, d)
	sub.None(t)
	if l := logs.Lines("Public address lookup works again"); len(l) != 1 {
		t.Fatalf("recovery not logged:\n%s", logs)
	}
}

// The must-show case: a private address is rejected (with the reason) and the last good one kept;
// AllowPrivate lets it through.
func TestDiscovererRejectsPrivate(t *testing.T) {
	for _, tc := range []struct{ addr, reason string }{
		{"192.168.1.10", "is a private address (RFC 1918); set --public-ip-allow-private to publish it anyway"},
		{"10.0.0.5", "private address (RFC 1918)"},
		{"172.20.0.1", "private address (RFC 1918)"},
		{"100.72.1.1", "carrier-grade NAT address (RFC 6598"},
		{"127.0.0.1", "loopback"},
		{"169.254.10.1", "link-local"},
		{"fd12:3456::1", "unique local address (ULA, fc00::/7)"},
		{"fe80::1", "link-local"},
		{"::ffff:192.168.1.10", "private address (RFC 1918)"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			echo := startEchoServer(t, "203.0.113.1")
			log, logs := newTestLogger()
			d := mustNew(t, Config{EchoURL: echo.URL, Logger: log})
			mustRefresh(t, d)
			echo.Set(http.StatusOK, tc.addr)
			if a := mustRefresh(t, d); a.V4.String() != "203.0.113.1" || a.V6.IsValid() {
				t.Fatalf("the private address was taken: %s", a)
			}
			if l := logs.Lines("Public address lookup failed", tc.reason, "keeping=\"203.0.113.1"); len(l) != 1 {
				t.Fatalf("no failure line with %q:\n%s", tc.reason, logs)
			}

			allow := mustNew(t, Config{EchoURL: echo.URL, AllowPrivate: true})
			a := mustRefresh(t, allow)
			if got := a.Addrs(); len(got) != 1 || got[0] != netip.MustParseAddr(tc.addr).Unmap() {
				t.Fatalf("AllowPrivate: got %s", a)
			}
		})
	}
	// Nothing lets multicast or unspecified addresses through.
	echo := startEchoServer(t, "224.0.0.1")
	if _, ok := mustNew(t, Config{EchoURL: echo.URL, AllowPrivate: true}).Refresh(context.Background()); ok {
		t.Fatal("multicast accepted with AllowPrivate")
	}
}

// A source returning one good and one private address publishes the good one and says why the other
// was dropped.
func TestDiscovererDropsPrivateCandidate(t *testing.T) {
	log, logs := newTestLogger()
	d := mustNew(t, Config{Static: []netip.Addr{netip.MustParseAddr("192.168.1.10"), netip.MustParseAddr("2001:db8::10")}, Logger: log})
	a := mustRefresh(t, d)
	if a.V4.IsValid() || a.V6.String() != "2001:db8::10" {
		t.Fatalf("got %s", a)
	}
	if l := logs.Lines("Public address candidate rejected", "192.168.1.10 is a private address"); len(l) != 1 {
		t.Fatalf("log:\n%s", logs)
	}
}

// Sources are tried in priority order; the first that works wins, and a broken one is logged.
func TestDiscovererFallbackOrder(t *testing.T) {
	echo := startEchoServer(t, "")
	echo.Set(http.StatusBadGateway, "")
	stun := startSTUNServer(t, "203.0.113.20")
	log, logs := newTestLogger()
	m := &recordingMetrics{}
	cfg := Config{
		Static:     []netip.Addr{netip.MustParseAddr("203.0.113.30")},
		EchoURL:    echo.URL,
		STUNServer: stun.Addr,
		Logger:     log,
		Metrics:    m,
	}
	d := mustNew(t, cfg)
	if got, want := strings.Join(d.Sources(), " | "), "http "+echo.URL+" | stun "+stun.Addr+" | static"; got != want {
		t.Fatalf("order %q, want %q", got, want)
	}
	sub := subscribe(d)

	// echo fails, STUN answers.
	a := mustRefresh(t, d)
	if a.V4.String() != "203.0.113.20" || a.Source != "stun "+stun.Addr {
		t.Fatalf("got %s from %q", a, a.Source)
	}
	sub.Next(t)
	if l := logs.Lines("Public address lookup failed", "answered HTTP 502"); len(l) != 1 {
		t.Fatalf("log:\n%s", logs)
	}
	if m.Failures("http "+echo.URL) != 1 || m.Failures("stun "+stun.Addr) != 0 {
		t.Fatalf("failures %v", m.failures)
	}

	// STUN fails too: the static value is the last resort.
	stun.set(func(s *stunServer) { s.mode = stunAnswerError })
	if a := mustRefresh(t, d); a.V4.String() != "203.0.113.30" || a.Source != "static" {
		t.Fatalf("got %s from %q", a, a.Source)
	}
	sub.Next(t)

	// The first source recovers and takes over again.
	echo.Set(http.StatusOK, "203.0.113.20")
	if a := mustRefresh(t, d); a.V4.String() != "203.0.113.20" || a.Source != "http "+echo.URL {
		t.Fatalf("got %s from %q", a, a.Source)
	}
	sub.Next(t)

	// Same address from another source: the source in force changes (logged, metric) but the records
	// do not, so subscribers hear nothing.
	echo.Set(http.StatusBadGateway, "")
	stun.set(func(s *stunServer) { s.mode = stunAnswerXOR })
	if a := mustRefresh(t, d); a.Source != "stun "+stun.Addr {
		t.Fatalf("source %q", a.Source)
	}
	sub.None(t)
	if last := m.inForce[len(m.inForce)-1]; last.Source != "stun "+stun.Addr {
		t.Fatalf("metrics last told %q", last.Source)
	}

	// An explicit order puts static first.
	cfg.Order = []string{KindStatic, KindSTUN, KindEcho}
	if a := mustRefresh(t, mustNew(t, cfg)); a.Source != "static" {
		t.Fatalf("with static first: %q", a.Source)
	}
}

// When every source fails before any succeeded, there is no address, and nothing is notified.
func TestDiscovererNoAddressYet(t *testing.T) {
	echo := startEchoServer(t, "not an address")
	log, logs := newTestLogger()
	d := mustNew(t, Config{EchoURL: echo.URL, Logger: log})
	sub := subscribe(d)
	if _, ok := d.Refresh(context.Background()); ok {
		t.Fatal("an address from garbage")
	}
	sub.None(t)
	if l := logs.Lines("Public address lookup failed", "keeping=none"); len(l) != 1 {
		t.Fatalf("log:\n%s", logs)
	}
}

// Cancelling the context stops the refresh goroutine, mid-lookup included, and leaves no goroutine
// behind (idle HTTP connections are closed too).
func TestDiscovererStopsOnCancel(t *testing.T) {
	echo := startEchoServer(t, "203.0.113.1")
	stun := startSTUNServer(t, "203.0.113.2")
	before := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	d := mustNew(t, Config{EchoURL: echo.URL, STUNServer: stun.Addr, RefreshInterval: time.Millisecond})
	d.Start(ctx)
	d.Start(ctx) // a second Start does nothing
	// Echo fails (leaving a kept-alive connection idle) and STUN hangs, so cancel lands in the middle
	// of a lookup.
	echo.Set(http.StatusBadGateway, "")
	stun.set(func(s *stunServer) { s.mode = stunAnswerNothing })
	for n := stun.Requests(); stun.Requests() < n+3; {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-d.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("refresh goroutine still running 5s after cancel")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before Start:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDiscovererMetricsOnChange(t *testing.T) {
	m := &recordingMetrics{}
	d := mustNew(t, Config{Static: []netip.Addr{netip.MustParseAddr("203.0.113.1")}, Metrics: m})
	mustRefresh(t, d)
	mustRefresh(t, d)
	if len(m.inForce) != 1 || m.inForce[0].V4.String() != "203.0.113.1" || m.inForce[0].Source != "static" {
		t.Fatalf("metrics told %v", m.inForce)
	}
}
