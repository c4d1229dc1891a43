package publicip

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// stunMode says how the test STUN server answers.
type stunMode int

const (
	stunAnswerXOR     stunMode = iota // XOR-MAPPED-ADDRESS (RFC 5389)
	stunAnswerMapped                  // MAPPED-ADDRESS only (an RFC 3489 server)
	stunAnswerGarbage                 // a datagram that is not STUN
	stunAnswerWrongTx                 // a well-formed answer for another transaction
	stunAnswerError                   // a Binding error response 420
	stunAnswerNothing                 // silence
)

// stunServer is a STUN server on 127.0.0.1 built on the same codec. It plays the router's NAT: it
// answers with the configured "public" address instead of the loopback address the request came from.
type stunServer struct {
	Addr string

	mu       sync.Mutex
	mapped   netip.Addr
	mode     stunMode
	drop     int // requests to ignore before answering (to exercise retransmission)
	requests int
	prefix   []stunMode // modes for the first answers, before mode (e.g. wrong transaction, then right)
}

func startSTUNServer(t *testing.T, mapped string) *stunServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stunServer{Addr: pc.LocalAddr().String(), mapped: netip.MustParseAddr(mapped)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			for _, out := range s.answer(buf[:n], from.(*net.UDPAddr).Port) {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	t.Cleanup(func() { pc.Close(); <-done })
	return s
}

func (s *stunServer) answer(req []byte, port int) [][]byte {
	m, err := parseStunMessage(req)
	if err != nil || m.Type != stunBindingRequest {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if s.drop > 0 {
		s.drop--
		return nil
	}
	mode := s.mode
	if len(s.prefix) > 0 {
		mode, s.prefix = s.prefix[0], s.prefix[1:]
	}
	ap := netip.AddrPortFrom(s.mapped, uint16(port))
	switch mode {
	case stunAnswerXOR:
		return [][]byte{appendStunBindingSuccess(nil, m.TxID, ap, true)}
	case stunAnswerMapped:
		return [][]byte{appendStunBindingSuccess(nil, m.TxID, ap, false)}
	case stunAnswerGarbage:
		return [][]byte{[]byte("hello, this is not STUN")}
	case stunAnswerWrongTx:
		other := m.TxID
		other[0] ^= 0xff
		return [][]byte{appendStunBindingSuccess(nil, other, netip.MustParseAddrPort("198.51.100.66:1"), true)}
	case stunAnswerError:
		msg := appendStunHeader(nil, stunBindingError, 0, m.TxID)
		msg = append(msg, 0, 0x09, 0, 16, 0, 0, 4, 20)
		msg = append(msg, "Unauthorized"...)
		msg = appendStunFingerprint(msg, 0)
		return [][]byte{msg}
	}
	return nil
}

func (s *stunServer) set(f func(s *stunServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *stunServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// echoServer is an HTTP echo service on 127.0.0.1 whose answer the test sets.
type echoServer struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	status   int
	body     string
	requests int
}

func startEchoServer(t *testing.T, body string) *echoServer {
	t.Helper()
	e := &echoServer{status: http.StatusOK, body: body}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		status, body := e.status, e.body
		e.requests++
		e.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	e.URL, e.srv = srv.URL, srv
	return e
}

// Close stops the server: later requests are refused.
func (e *echoServer) Close() { e.srv.Close() }

func (e *echoServer) Set(status int, body string) {
	e.mu.Lock()
	e.status, e.body = status, body
	e.mu.Unlock()
}

func (e *echoServer) Requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests
}

// logBuffer captures log lines from concurrent goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Lines returns the lines holding every one of the substrings.
func (l *logBuffer) Lines(subs ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		ok := line != ""
		for _, s := range subs {
			ok = ok && strings.Contains(line, s)
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

func newTestLogger() (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

// recordingMetrics keeps what the Discoverer reported.
type recordingMetrics struct {
	mu       sync.Mutex
	inForce  []Address
	failures map[string]int
}

func (m *recordingMetrics) AddressInForce(a Address) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inForce = append(m.inForce, a)
}

func (m *recordingMetrics) LookupFailed(source string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failures == nil {
		m.failures = map[string]int{}
	}
	m.failures[source]++
}

func (m *recordingMetrics) Failures(source string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.failures[source]
}

// subscription collects the addresses a subscriber was told about.
type subscription struct {
	ch chan Address
}

func subscribe(d *Discoverer) *subscription {
	s := &subscription{ch: make(chan Address, 100)}
	d.Subscribe(func(a Address) { s.ch <- a })
	return s
}

// Next waits for the next notification.
func (s *subscription) Next(t *testing.T) Address {
	t.Helper()
	select {
	case a := <-s.ch:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no address change notified within 10s")
		return Address{}
	}
}

// None checks that nothing was notified.
func (s *subscription) None(t *testing.T) {
	t.Helper()
	select {
	case a := <-s.ch:
		t.Fatalf("unexpected notification: %s from %s", a, a.Source)
	default:
	}
}

func mustNew(t *testing.T, cfg Config) *Discoverer {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustRefresh(t *testing.T, d *Discoverer) Address {
	t.Helper()
	a, ok := d.Refresh(context.Background())
	if !ok {
		t.Fatal("no public address known after Refresh")
	}
	return a
}

// wantLookupError checks that a lookup fails with an error containing want.
func wantLookupError(t *testing.T, s Source, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := s.Lookup(ctx)
	if err == nil {
		t.Fatalf("%s: got %v, want an error containing %q", s.Name(), addrs, want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: error %q, want one containing %q", s.Name(), err, want)
	}
}

func lookupOK(t *testing.T, s Source) []netip.Addr {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := s.Lookup(ctx)
	if err != nil {
		t.Fatalf("%s: %v", s.Name(), err)
	}
	return addrs
}

func addrsString(addrs []netip.Addr) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ",")
}
