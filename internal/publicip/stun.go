package publicip

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// RFC 5389 §7.2.1: start with an RTO of 500 ms, double it on each retransmission, send at most Rc = 7
// requests and wait Rm = 16 RTOs after the last one. The Discoverer's lookup timeout bounds the total.
const (
	stunDefaultRTO = 500 * time.Millisecond
	stunRc         = 7
	stunRm         = 16
)

// STUNSource sends a STUN Binding request (RFC 5389) over UDP to Server and returns the reflexive
// address in the answer (--public-ip-stun-server): the address the router's NAT gives this host's
// traffic, which is the WAN address.
type STUNSource struct {
	// Server is host:port; a host name is resolved on every lookup.
	Server string
	// InitialRTO is the first retransmission timeout; 0 means 500 ms.
	InitialRTO time.Duration
}

// Name implements Source.
func (s *STUNSource) Name() string { return "stun " + s.Server }

// Lookup implements Source. Answers whose magic cookie, transaction ID or FINGERPRINT do not match are
// ignored (a late answer to an earlier lookup, or garbage); an error response or a success without a
// mapped address ends the lookup.
func (s *STUNSource) Lookup(ctx context.Context) ([]netip.Addr, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "udp", s.Server)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	defer conn.Close()
	// Wake a blocked Read as soon as the context ends.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Now()) })
	defer stop()

	var id stunTxID
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("transaction ID: %w", err)
	}
	req := appendStunBindingRequest(make([]byte, 0, stunHeaderLen), id)
	rto := s.InitialRTO
	if rto <= 0 {
		rto = stunDefaultRTO
	}
	buf := make([]byte, 1500)
	var lastBad error
	sent := 0
	for sent < stunRc {
		if _, err := conn.Write(req); err != nil {
			return nil, fmt.Errorf("send: %w", err)
		}
		sent++
		wait := rto
		if sent == stunRc {
			wait = stunRm * s.rto()
		}
		until := time.Now().Add(wait)
		if dl, ok := ctx.Deadline(); ok && dl.Before(until) {
			until = dl
		}
		if err := conn.SetReadDeadline(until); err != nil {
			return nil, err
		}
		for {
			n, err := conn.Read(buf)
			if err != nil {
				if ctx.Err() != nil {
					return nil, s.noAnswer(sent, ctx.Err(), lastBad)
				}
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					break // retransmit
				}
				return nil, fmt.Errorf("receive: %w", err)
			}
			m, err := parseStunMessage(buf[:n])
			if err != nil {
				lastBad = err
				continue
			}
			if m.TxID != id {
				lastBad = errors.New("an answer with another transaction ID")
				continue
			}
			switch m.Type {
			case stunBindingSuccess:
				ap, ok := m.MappedAddress()
				if !ok {
					return nil, errors.New("the Binding response has neither XOR-MAPPED-ADDRESS nor MAPPED-ADDRESS")
				}
				return []netip.Addr{ap.Addr()}, nil
			case stunBindingError:
				return nil, fmt.Errorf("the server answered error %d %q", m.ErrorCode, m.ErrorText)
			default:
				lastBad = fmt.Errorf("an answer of message type %#04x", m.Type)
			}
		}
		if ctx.Err() != nil {
			return nil, s.noAnswer(sent, ctx.Err(), lastBad)
		}
		rto *= 2
	}
	return nil, s.noAnswer(sent, nil, lastBad)
}

func (s *STUNSource) rto() time.Duration {
	if s.InitialRTO > 0 {
		return s.InitialRTO
	}
	return stunDefaultRTO
}

func (s *STUNSource) noAnswer(sent int, ctxErr, lastBad error) error {
	msg := fmt.Sprintf("no valid Binding response after %d requests", sent)
	switch {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		msg += " before the lookup timed out"
	case ctxErr != nil:
		msg += " (" + ctxErr.Error() + ")"
	}
	if lastBad != nil {
		msg += "; ignored " + lastBad.Error()
	}
	return errors.New(msg)
}
