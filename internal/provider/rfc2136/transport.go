package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"net"
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
	return c
}

// signer returns how requests to server are signed: nil when unsigned, the TSIG key, or the
// GSS-TSIG context with that server (negotiated now if there is none, if it is due for renewal, or
// if renew is set).
func (p *Provider) signer(server string, renew bool) (*signer, error) {
	switch {
	case p.gss != nil:
		s, err := p.gss.key(server, renew)
		if err != nil {
			return nil, err
		}
		return &s, nil
	case p.s.key != nil:
		return &signer{name: p.s.key.name, alg: p.s.key.alg}, nil
	}
	return nil, nil
}

// tsigProvider is what checks and computes the MACs: the GSS context, else the TSIG secret.
func (p *Provider) tsigProvider(s *signer) (dns.TsigProvider, map[string]string) {
	if s == nil {
		return nil, nil
	}
	if s.provider != nil {
		return s.provider, nil
	}
	return nil, map[string]string{p.s.key.name: p.s.key.secret}
}

// rejectedContext reports an answer that says the server no longer accepts a GSS-TSIG context
// (it expired there, or the server restarted and forgot it): a new one is negotiated and the request
// sent again.
func (p *Provider) rejectedContext(r *dns.Msg, err error) bool {
	if p.gss == nil || r == nil {
		return false
	}
	if err != nil && tsigFailure(err) {
		return true
	}
	t := r.IsTsig()
	return r.Rcode == dns.RcodeNotAuth || (t != nil && t.Error != 0)
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
		sig, err := c.p.signer(server, false)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) { // the server cannot be reached: try the next one
				errs = append(errs, fmt.Errorf("%s: %w", server, err))
				continue
			}
			return nil, server, err
		}
		cl.TsigProvider, cl.TsigSecret = c.p.tsigProvider(sig)
		if c.c == nil || idx != c.server {
			if err := c.dial(ctx, cl, idx); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		r, msg, err := c.send(ctx, cl, m, sig)
		if c.p.rejectedContext(r, err) {
			// Renegotiate once, and send the message again over a new connection.
			if sig, err = c.p.signer(server, true); err != nil {
				c.close()
				return nil, server, err
			}
			cl.TsigProvider, cl.TsigSecret = c.p.tsigProvider(sig)
			if err := c.dial(ctx, cl, idx); err != nil {
				errs = append(errs, err)
				continue
			}
			r, msg, err = c.send(ctx, cl, m, sig)
		}
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

// dial replaces the connection with a new one to server idx.
func (c *conn) dial(ctx context.Context, cl *dns.Client, idx int) error {
	c.close()
	server := c.p.s.servers[idx]
	dialCtx, cancel := context.WithTimeout(ctx, c.p.s.timeout)
	defer cancel()
	dc, err := cl.DialContext(dialCtx, server)
	if err != nil {
		return fmt.Errorf("%s: %w", server, err)
	}
	c.c, c.server = dc, idx
	return nil
}

// send signs a copy of m when sig is set and exchanges it over the current connection.
func (c *conn) send(ctx context.Context, cl *dns.Client, m *dns.Msg, sig *signer) (*dns.Msg, *dns.Msg, error) {
	msg := m
	if sig != nil {
		msg = m.Copy()
		msg.SetTsig(sig.name, sig.alg, 300, time.Now().Unix())
	}
	if msg.Opcode == dns.OpcodeUpdate {
		c.p.updates.Add(1)
	}
	// A fresh dns.Conn over the same socket per message: dns.Conn keeps the MAC of the last request
	// and would sign the next request with it (a TSIG chain is for one request's answers only), which
	// the server rejects with BADSIG.
	r, _, err := cl.ExchangeWithConnContext(ctx, msg, &dns.Conn{Conn: c.c.Conn})
	return r, msg, err
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
