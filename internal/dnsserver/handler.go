package dnsserver

import (
	"net"
	"net/netip"
	"time"

	"github.com/miekg/dns"
)

// ServeDNS implements dns.Handler.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	client, tcp := clientOf(w.RemoteAddr())
	if len(req.Question) == 1 {
		if qt := req.Question[0].Qtype; tcp && (qt == dns.TypeAXFR || qt == dns.TypeIXFR) {
			s.transfer(w, req, s.pickView(req, client))
			return
		}
	}
	resp := s.respond(req, client, tcp)
	if t := req.IsTsig(); t != nil {
		// A signed query gets a signed answer; a signature that does not verify gets NOTAUTH,
		// unsigned, since the key cannot be trusted (RFC 8945 §5.2).
		if w.TsigStatus() != nil {
			resp.Answer, resp.Ns = nil, nil
			resp.Rcode = dns.RcodeNotAuth
		} else {
			resp.SetTsig(t.Hdr.Name, t.Algorithm, t.Fudge, time.Now().Unix())
			if err := w.WriteMsg(resp); err != nil {
				s.log.Debug("DNS answer not sent", "client", client, "err", err)
			}
			return
		}
	}
	buf, err := s.pack(resp, req, tcp)
	if err != nil {
		s.log.Debug("DNS answer not packed", "client", client, "err", err)
		return
	}
	if _, err := w.Write(buf); err != nil {
		s.log.Debug("DNS answer not sent", "client", client, "err", err)
	}
}

// respond builds the answer to a query from a client; it never fails and never panics on a
// well-formed message.
func (s *Server) respond(req *dns.Msg, client netip.Addr, tcp bool) *dns.Msg {
	m := new(dns.Msg)
	m.SetReply(req)
	if len(req.Question) != 1 {
		m.Rcode = dns.RcodeFormatError
		return m
	}
	if req.Opcode != dns.OpcodeQuery {
		m.Rcode = dns.RcodeNotImplemented
		return m
	}
	if opt := req.IsEdns0(); opt != nil {
		m.SetEdns0(uint16(s.cfg.MaxUDPSize), opt.Do())
		if opt.Version() != 0 {
			m.Rcode = dns.RcodeBadVers // RFC 6891 §6.1.3
			return m
		}
	}
	q := req.Question[0]
	switch {
	case q.Qclass != dns.ClassINET && q.Qclass != dns.ClassANY:
		m.Rcode = dns.RcodeRefused
		return m
	case q.Qtype == dns.TypeAXFR:
		// A zone transfer needs TCP.
		m.Rcode = dns.RcodeRefused
		return m
	}
	v := s.pickView(req, client)
	answer(m, v.snap.Load(), q, tcp)
	return m
}

// pickView selects the view for a query: by the client's source address, or, when UseClientSubnet is
// on and the query carries an EDNS0 client-subnet option, by the address in the option.
func (s *Server) pickView(req *dns.Msg, client netip.Addr) *view {
	if s.cfg.UseClientSubnet {
		if a, ok := clientSubnet(req); ok {
			client = a
		}
	}
	return s.views.pick(client)
}

// clientSubnet returns the address of an EDNS0 client-subnet option, if the query has one.
func clientSubnet(req *dns.Msg) (netip.Addr, bool) {
	opt := req.IsEdns0()
	if opt == nil {
		return netip.Addr{}, false
	}
	for _, o := range opt.Option {
		if ecs, ok := o.(*dns.EDNS0_SUBNET); ok {
			a, ok := netip.AddrFromSlice(ecs.Address)
			if !ok {
				return netip.Addr{}, false
			}
			bits := int(ecs.SourceNetmask)
			if p, err := a.Unmap().Prefix(bits); err == nil {
				return p.Addr(), true
			}
			return netip.Addr{}, false
		}
	}
	return netip.Addr{}, false
}

// pack serialises an answer. Over UDP an answer larger than the client can take (512 bytes without
// EDNS0, else the smaller of its advertised size and MaxUDPSize) is replaced by an empty one with TC
// set, so the client retries over TCP; record sets are never split (RFC 2181 §9).
func (s *Server) pack(m, req *dns.Msg, tcp bool) ([]byte, error) {
	m.Compress = true
	buf, err := m.Pack()
	if err != nil || tcp {
		return buf, err
	}
	limit := dns.MinMsgSize
	if opt := req.IsEdns0(); opt != nil {
		limit = max(dns.MinMsgSize, min(int(opt.UDPSize()), s.cfg.MaxUDPSize))
	}
	if len(buf) <= limit {
		return buf, nil
	}
	m.Answer, m.Ns = nil, nil
	extra := m.Extra[:0]
	for _, rr := range m.Extra {
		if rr.Header().Rrtype == dns.TypeOPT {
			extra = append(extra, rr)
		}
	}
	m.Extra = extra
	m.Truncated = true
	return m.Pack()
}

// clientOf returns the client's address and whether it came over TCP.
func clientOf(a net.Addr) (netip.Addr, bool) {
	switch v := a.(type) {
	case *net.UDPAddr:
		ip, _ := netip.AddrFromSlice(v.IP)
		return ip.Unmap(), false
	case *net.TCPAddr:
		ip, _ := netip.AddrFromSlice(v.IP)
		return ip.Unmap(), true
	}
	return netip.Addr{}, false
}
