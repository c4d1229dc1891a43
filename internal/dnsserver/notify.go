package dnsserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// NotifyTarget is a secondary that is sent a NOTIFY (RFC 1996) for every zone whenever a view changes,
// so that it transfers at once instead of at the SOA refresh (1 h by default). Key, when set, names the
// TSIG key the NOTIFY is signed with.
type NotifyTarget struct {
	Addr string // host:port; the port defaults to 53
	Key  string
}

// notifyAttempts and notifyTimeout bound the tries of one NOTIFY: a secondary that does not answer is
// tried again with a doubled timeout (RFC 1996 §3.6 asks for retries until an answer), then given up
// with a warning; the next change notifies it again, and its SOA refresh catches up in any case.
const (
	notifyAttempts = 5
	notifyTimeout  = 500 * time.Millisecond
)

// notifier sends the NOTIFYs in the background: changes that arrive while a round is being sent are
// coalesced into one more round, so a burst of updates costs a secondary one transfer or two.
type notifier struct {
	targets    []NotifyTarget
	zones      []string
	keys       map[string]string // name → secret
	algorithms map[string]string // name → algorithm
	log        logger

	kick chan struct{}
	stop chan struct{}
	// ctx ends when stop closes, cutting an exchange in flight.
	ctx    context.Context
	cancel context.CancelFunc
	done   sync.WaitGroup
	// sent counts NOTIFYs answered, for tests and logs.
	mu   sync.Mutex
	sent int
}

type logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
}

func newNotifier(targets []NotifyTarget, zones []string, keys, algorithms map[string]string, log logger) *notifier {
	ctx, cancel := context.WithCancel(context.Background())
	return &notifier{targets: targets, zones: zones, keys: keys, algorithms: algorithms, log: log,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// start begins sending; changes made before are notified then.
func (n *notifier) start() {
	if len(n.targets) == 0 {
		return
	}
	n.done.Add(1)
	go n.loop()
}

// changed asks for a round of NOTIFYs; it never blocks.
func (n *notifier) changed() {
	if len(n.targets) == 0 {
		return
	}
	select {
	case n.kick <- struct{}{}:
	default: // a round is already due
	}
}

func (n *notifier) close() {
	if len(n.targets) == 0 {
		n.cancel()
		return
	}
	select {
	case <-n.stop:
	default:
		close(n.stop)
		n.cancel()
	}
	n.done.Wait()
}

func (n *notifier) loop() {
	defer n.done.Done()
	for {
		select {
		case <-n.stop:
			return
		case <-n.kick:
		}
		var wg sync.WaitGroup
		for _, t := range n.targets {
			for _, z := range n.zones {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n.send(t, z)
				}()
			}
		}
		wg.Wait()
	}
}

// send delivers one NOTIFY for zone to t, retrying while it is not answered.
func (n *notifier) send(t NotifyTarget, zone string) {
	// Built for each try: miekg/dns takes the TSIG record out of a message when it signs it, so a
	// message sent again would go out unsigned.
	message := func() *dns.Msg {
		m := new(dns.Msg)
		m.SetNotify(zone)
		if t.Key != "" {
			alg := n.algorithms[t.Key]
			if alg == "" {
				alg = dns.HmacSHA256
			}
			m.SetTsig(t.Key, alg, 300, time.Now().Unix())
		}
		return m
	}
	c := &dns.Client{Net: "udp", TsigSecret: n.keys}
	timeout := notifyTimeout
	var err error
	for attempt := 0; attempt < notifyAttempts; attempt++ {
		select {
		case <-n.stop:
			return
		default:
		}
		c.Timeout = timeout
		var r *dns.Msg
		r, err = n.exchange(c, message(), t.Addr)
		if err == nil && r.Rcode == dns.RcodeSuccess {
			n.mu.Lock()
			n.sent++
			n.mu.Unlock()
			return
		}
		if err == nil {
			err = fmt.Errorf("answered %s", dns.RcodeToString[r.Rcode])
			break // a refusal is not fixed by asking again
		}
		if errors.Is(err, dns.ErrSig) || errors.Is(err, dns.ErrTime) || errors.Is(err, dns.ErrSecret) || errors.Is(err, dns.ErrKeyAlg) {
			break // a bad signature, or one that cannot be made: nor is this
		}
		timeout *= 2
	}
	n.log.Warn("NOTIFY not acknowledged", "secondary", t.Addr, "zone", zone, "error", err.Error())
}

// answered returns how many NOTIFYs secondaries acknowledged.
func (n *notifier) answered() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sent
}

// normalizeNotify checks the NOTIFY targets, adding port 53 where none is given.
func normalizeNotify(targets []NotifyTarget, keys, algorithms map[string]string) ([]NotifyTarget, error) {
	var out []NotifyTarget
	for i, t := range targets {
		addr := t.Addr
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]"), "53")
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil || net.ParseIP(host) == nil {
			return nil, fmt.Errorf("notify[%d]: %q is not IP[:PORT]", i, t.Addr)
		}
		key := ""
		if t.Key != "" {
			key = dns.CanonicalName(t.Key)
			if _, ok := keys[key]; !ok {
				return nil, fmt.Errorf("notify[%d]: key %q is not among the TSIG keys", i, t.Key)
			}
			if alg := algorithms[key]; alg != "" && !signingAlgorithm(alg) {
				return nil, fmt.Errorf("notify[%d]: key %q: cannot sign with algorithm %s", i, t.Key, alg)
			}
		}
		out = append(out, NotifyTarget{Addr: addr, Key: key})
	}
	return out, nil
}

// exchange is one UDP exchange that Close cuts short: miekg/dns heeds a context's deadline but not its
// cancellation, so the connection is closed when the notifier stops.
func (n *notifier) exchange(c *dns.Client, m *dns.Msg, addr string) (*dns.Msg, error) {
	conn, err := c.DialContext(n.ctx, addr)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-n.ctx.Done():
		case <-done:
		}
		conn.Close()
	}()
	r, _, err := c.ExchangeWithConnContext(n.ctx, m, conn)
	return r, err
}
