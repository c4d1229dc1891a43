package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/miekg/dns"
)

// conn sends UPDATE messages for one zone over one connection, reused across the messages of a call.
// When a server cannot be reached (or the connection breaks) the next server of --rfc2136-host is
// tried with the same message; every message the provider sends is idempotent (RemoveRRset, adds,
// prerequisites that still hold after a replay), so resending one whose answer was lost is safe.
type conn struct {
	p      *Provider
	server int // index in p.s.servers of the current connection
	c      *dns.Conn
}

func (p *Provider) newConn() *conn { return &conn{p: p} }

func (p *Provider) client(server string) *dns.Client {
	c := &dns.Client{Net: "tcp", Timeout: p.s.timeout}
	if p.s.tls != nil {
		c.Net = "tcp-tls"
		c.TLSConfig = forServer(p.s.tls, server)
	}
	if p.s.key != nil {
		c.TsigSecret = map[string]string{p.s.key.name: p.s.key.secret}
	}
	return c
}

func (c *conn) close() {
	if c.c != nil {
		_ = c.c.Close()
		c.c = nil
	}
}

// exchange sends m (signing a copy when a key is configured) and returns the server's answer and the
// server that gave it. err is set with a nil answer when no server could be reached, and with an
// answer whose TSIG did not verify (the answer's rcode and TSIG error then tell why).
func (c *conn) exchange(ctx context.Context, m *dns.Msg) (*dns.Msg, string, error) {
	servers := c.p.s.servers
	var errs []error
	for attempt := 0; attempt < len(servers); attempt++ {
		idx := (c.server + attempt) % len(servers)
		server := servers[idx]
		cl := c.p.client(server)
		if c.c == nil || idx != c.server {
			c.close()
			dialCtx, cancel := context.WithTimeout(ctx, c.p.s.timeout)
			dc, err := cl.DialContext(dialCtx, server)
			cancel()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", server, err))
				continue
			}
			c.c, c.server = dc, idx
		}
		msg := m
		if k := c.p.s.key; k != nil {
			msg = m.Copy()
			msg.SetTsig(k.name, k.alg, 300, time.Now().Unix())
		}
		if msg.Opcode == dns.OpcodeUpdate {
			c.p.updates.Add(1)
		}
		// A fresh dns.Conn over the same socket per message: dns.Conn keeps the MAC of the last request
		// and would sign the next request with it (a TSIG chain is for one request's answers only), which
		// the server rejects with BADSIG.
		r, _, err := cl.ExchangeWithConnContext(ctx, msg, &dns.Conn{Conn: c.c.Conn})
		if r != nil && r.Id == msg.Id && (err == nil || tsigFailure(err)) {
			if err != nil {
				c.close() // a failed TSIG check leaves the connection's state in doubt
			}
			return r, server, err
		}
		c.close()
		if ctx.Err() != nil {
			return nil, server, ctx.Err()
		}
		errs = append(errs, fmt.Errorf("%s: %w", server, err))
	}
	return nil, "", fmt.Errorf("no server answered: %w", errors.Join(errs...))
}

// tsigFailure reports an error of the answer's TSIG check (the answer itself arrived).
func tsigFailure(err error) bool {
	for _, e := range []error{dns.ErrAuth, dns.ErrSig, dns.ErrTime, dns.ErrKeyAlg, dns.ErrSecret} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
