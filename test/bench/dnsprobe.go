package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// dnsProbe asks a DNS server over UDP, as a resolver asking zonekeeper's built-in server would: the
// answers are what clients are served, so times taken from them are event-to-answer times.
type dnsProbe struct {
	addr string
	// Timeout bounds one exchange; a lost datagram is asked again, up to tries times.
	timeout time.Duration
	tries   int
}

func newDNSProbe(addr string) dnsProbe {
	return dnsProbe{addr: addr, timeout: 2 * time.Second, tries: 3}
}

// dial opens a UDP socket to the server, reused for many questions.
func (p dnsProbe) dial() (*dns.Conn, error) {
	c := &dns.Client{Net: "udp", Timeout: p.timeout}
	conn, err := c.Dial(p.addr)
	if err != nil {
		return nil, fmt.Errorf("dns %s: %v", p.addr, err)
	}
	return conn, nil
}

// ask sends one question on conn and returns the answer, asking again after a timeout.
func (p dnsProbe) ask(conn *dns.Conn, name string, qtype uint16) (*dns.Msg, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	c := &dns.Client{Net: "udp", Timeout: p.timeout}
	var err error
	for try := 0; try < p.tries; try++ {
		m.Id = dns.Id()
		var r *dns.Msg
		if r, _, err = c.ExchangeWithConn(m, conn); err == nil {
			return r, nil
		}
	}
	return nil, fmt.Errorf("dns %s: %s %s: %v", p.addr, dns.TypeToString[qtype], name, err)
}

// serial is the SOA serial of zone.
func (p dnsProbe) serial(conn *dns.Conn, zone string) (uint32, error) {
	r, err := p.ask(conn, zone, dns.TypeSOA)
	if err != nil {
		return 0, err
	}
	for _, rr := range r.Answer {
		if soa, ok := rr.(*dns.SOA); ok {
			return soa.Serial, nil
		}
	}
	return 0, fmt.Errorf("dns %s: SOA %s: no SOA in the answer (%s)", p.addr, zone, dns.RcodeToString[r.Rcode])
}

// address is the one A value served for name, or what was served instead, as a sentence.
func (p dnsProbe) address(conn *dns.Conn, name string) (ip, got string, err error) {
	r, err := p.ask(conn, name, dns.TypeA)
	if err != nil {
		return "", "", err
	}
	var vals []string
	for _, rr := range r.Answer {
		if a, ok := rr.(*dns.A); ok {
			vals = append(vals, a.A.String())
		}
	}
	if r.Rcode == dns.RcodeSuccess && len(vals) == 1 {
		return vals[0], vals[0], nil
	}
	return "", fmt.Sprintf("%s with A %v", dns.RcodeToString[r.Rcode], vals), nil
}

// unanswered asks for the A record of every index in idx with workers sockets in parallel and returns,
// in order, the indices whose name (expect's host) is not answered with exactly expect's address, and
// what the first of them was answered.
func (p dnsProbe) unanswered(idx []int, expect func(int) (host, ip string), workers int) (missing []int, first string, err error) {
	var (
		next     atomic.Int64
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := p.dial()
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			defer conn.Close()
			var mine []int
			defer func() {
				mu.Lock()
				missing = append(missing, mine...)
				mu.Unlock()
			}()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(idx) {
					return
				}
				host, want := expect(idx[i])
				ip, got, err := p.address(conn, host)
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				if ip != want {
					mine = append(mine, idx[i])
					if len(mine) == 1 {
						mu.Lock()
						if first == "" {
							first = fmt.Sprintf("%s is answered %s, want %s", host, got, want)
						}
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, "", firstErr
	}
	slices.Sort(missing)
	return missing, first, nil
}

// serialSeen is one SOA serial of the zone and when the watcher first saw it served, with what the
// watcher's hook read then (the tool's CPU time and memory).
type serialSeen struct {
	Serial    uint32
	At        time.Time
	CPU       time.Duration
	RSS, Anon int64
}

// serialWatcher asks for the zone's SOA serial every interval and notes each new one: the built-in
// server bumps it once per batch it applies, and a batch is served whole or not at all, so the first
// sighting of a serial is when a batch's records started being answered (to within the interval).
type serialWatcher struct {
	mu   sync.Mutex
	seen []serialSeen
	err  error
	// changed is closed at the next new serial.
	changed chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}
}

// watchSerial starts watching; hook, when not nil, fills in each sighting's figures as it is made.
// Until the server answers (it may still be starting) errors are not kept.
func watchSerial(p dnsProbe, zone string, interval time.Duration, hook func(*serialSeen)) *serialWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	w := &serialWatcher{changed: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		var conn *dns.Conn
		defer func() {
			if conn != nil {
				conn.Close()
			}
		}()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if conn == nil {
				conn, _ = p.dial()
			}
			if conn != nil {
				s, err := p.serial(conn, zone)
				w.note(s, err, hook)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *serialWatcher) note(serial uint32, err error, hook func(*serialSeen)) {
	at := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if len(w.seen) > 0 {
			w.err = err
		}
		return
	}
	w.err = nil
	if len(w.seen) > 0 && w.seen[len(w.seen)-1].Serial == serial {
		return
	}
	s := serialSeen{Serial: serial, At: at}
	if hook != nil {
		hook(&s)
	}
	w.seen = append(w.seen, s)
	close(w.changed)
	w.changed = make(chan struct{})
}

// latest is the newest serial seen (zero before the server answered), the channel closed at the next
// one, and the last error asking for it, if the latest question failed.
func (w *serialWatcher) latest() (serialSeen, <-chan struct{}, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) == 0 {
		return serialSeen{}, w.changed, nil
	}
	return w.seen[len(w.seen)-1], w.changed, w.err
}

// history is every serial seen, oldest first.
func (w *serialWatcher) history() []serialSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

func (w *serialWatcher) stop() {
	w.cancel()
	<-w.done
}

// convergence is how awaitAllAnswered found every name answered.
type convergence struct {
	// At is the sighting of the serial under which the last full check found every name answered.
	At serialSeen
	// Exact is false when the serial moved during that check: every name was answered by At, but
	// perhaps already under an earlier serial.
	Exact bool
	// Checks is how many full checks of the remaining names were made; Questions how many A questions
	// they asked in all.
	Checks, Questions int
}

// awaitAllAnswered waits until every one of n names (expect's host and address of each index) is
// answered with its address. At each new serial it asks for up to 1,000 sentinel names spread over
// the range; once they are all answered, it asks for every name not yet seen answered (names only
// appear while a tool converges from empty, so one answered stays answered). It gives up when timeout
// passes, saying how far it got, or when alive reports the tool gone.
func awaitAllAnswered(p dnsProbe, w *serialWatcher, n int, expect func(int) (host, ip string), timeout time.Duration, alive func() error, progress func(string)) (convergence, error) {
	const workers = 8
	sentinels := make([]int, 0, 1000)
	for k := 0; k < 1000 && k < n; k++ {
		sentinels = append(sentinels, k*n/min(n, 1000))
	}
	if n > 0 && sentinels[len(sentinels)-1] != n-1 {
		sentinels = append(sentinels, n-1)
	}
	var (
		res      convergence
		pending  []int // nil until the sentinels are answered
		checked  uint32
		status   = "the server has not answered a SOA question yet"
		deadline = time.Now().Add(timeout)
	)
	for {
		cur, changed, err := w.latest()
		if cur.Serial == checked || cur.Serial == 0 {
			if err := alive(); err != nil {
				return res, err
			}
			if time.Now().After(deadline) {
				return res, fmt.Errorf("not within %s: %s", timeout, status)
			}
			if err != nil {
				status = err.Error()
			}
			select {
			case <-changed:
			case <-time.After(time.Second):
			}
			continue
		}
		checked = cur.Serial
		if pending == nil {
			miss, first, err := p.unanswered(sentinels, expect, workers)
			if err != nil {
				return res, err
			}
			if len(miss) > 0 {
				status = fmt.Sprintf("serial %d: %d of %d sentinel names unanswered (%s)", cur.Serial, len(miss), len(sentinels), first)
				continue
			}
			pending = make([]int, n)
			for i := range pending {
				pending[i] = i
			}
		}
		progress(fmt.Sprintf("serial %d: checking the %d names not yet answered", cur.Serial, len(pending)))
		res.Checks++
		res.Questions += len(pending)
		miss, first, err := p.unanswered(pending, expect, workers)
		if err != nil {
			return res, err
		}
		pending = miss
		end, _, _ := w.latest()
		if len(pending) == 0 {
			res.At, res.Exact = end, end.Serial == cur.Serial
			return res, nil
		}
		status = fmt.Sprintf("serial %d: %d of %d names unanswered (%s)", cur.Serial, len(pending), n, first)
		progress(status)
	}
}

// awaitAddress asks for host's A record every millisecond or so until it is answered with ip, and
// returns when that answer arrived; it gives up after timeout, saying what was answered last.
func (p dnsProbe) awaitAddress(conn *dns.Conn, host, ip string, timeout time.Duration, alive func() error) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	got := "nothing"
	for {
		v, answer, err := p.address(conn, host)
		at := time.Now()
		if err != nil {
			return at, err
		}
		if v == ip {
			return at, nil
		}
		got = answer
		if at.After(deadline) {
			return at, fmt.Errorf("%s not answered %s within %s: answered %s", host, ip, timeout, got)
		}
		if err := alive(); err != nil {
			return at, err
		}
		time.Sleep(time.Millisecond)
	}
}
