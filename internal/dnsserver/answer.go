package dnsserver

import (
	"strings"

	"github.com/miekg/dns"
)

// maxChain bounds CNAME chasing inside the served zones (loops are cut earlier).
const maxChain = 8

// answer fills m (already a reply to q) from a view's snapshot: authoritative data, CNAMEs chased
// inside the zones, wildcards, NXDOMAIN and NODATA with the zone's SOA, REFUSED outside the zones.
func answer(m *dns.Msg, snap *snapshot, q dns.Question, tcp bool) {
	name := strings.ToLower(q.Name)
	z := snap.zoneOf(name)
	if z == nil {
		// Not ours, and we never recurse.
		m.Rcode = dns.RcodeRefused
		return
	}
	m.Authoritative = true
	owner := q.Name // synthesised records take the question's spelling
	for hop := 0; ; hop++ {
		n, wildcard := find(snap, z, name)
		if n == nil {
			m.Rcode = dns.RcodeNameError
			m.Ns = append(m.Ns, z.negSOA)
			return
		}
		if name == z.name && answerApex(m, z, n, q.Qtype, tcp) {
			return
		}
		if q.Qtype == dns.TypeANY {
			if !answerAny(m, n, owner, wildcard, tcp) {
				m.Ns = append(m.Ns, z.negSOA)
			}
			return
		}
		if rrs := n.get(q.Qtype); rrs != nil {
			m.Answer = appendOwned(m.Answer, rrs, owner, wildcard)
			return
		}
		cname := n.get(dns.TypeCNAME)
		if cname == nil || q.Qtype == dns.TypeCNAME {
			m.Ns = append(m.Ns, z.negSOA) // NODATA
			return
		}
		m.Answer = appendOwned(m.Answer, cname, owner, wildcard)
		target := strings.ToLower(cname[0].(*dns.CNAME).Target)
		tz := snap.zoneOf(target)
		if tz == nil || hop >= maxChain || chainHas(m.Answer, target) {
			// Outside our zones the client's resolver follows it; a loop or a long chain ends here.
			return
		}
		z, name, owner = tz, target, target
	}
}

// find returns the node answering for a canonical name in zone z: the name itself (possibly an empty
// non-terminal), or the wildcard at the closest encloser (RFC 4592), flagged as such; nil when the
// name does not exist.
func find(snap *snapshot, z *zone, name string) (*node, bool) {
	if n := snap.names.get(name); n != nil {
		return n, false
	}
	ce := parent(name)
	for len(ce) > len(z.name) {
		if snap.names.get(ce) != nil {
			break
		}
		ce = parent(ce)
	}
	if wc := snap.names.get("*." + ce); wc != nil {
		return wc, true
	}
	return nil, false
}

// answerApex answers SOA and NS at a zone apex from the configuration; it reports whether it did.
func answerApex(m *dns.Msg, z *zone, n *node, qtype uint16, tcp bool) bool {
	switch qtype {
	case dns.TypeSOA:
		m.Answer = append(m.Answer, z.soa)
	case dns.TypeNS:
		m.Answer = append(m.Answer, z.ns...)
	case dns.TypeANY:
		m.Answer = append(m.Answer, z.soa)
		if tcp {
			m.Answer = append(m.Answer, z.ns...)
			for _, s := range n.merged {
				m.Answer = append(m.Answer, s.rrs...)
			}
		}
	case dns.TypeIXFR:
		// Over UDP an IXFR is answered with the SOA alone: the client then transfers over TCP
		// (RFC 1995 §2).
		m.Answer = append(m.Answer, z.soa)
	default:
		return false
	}
	return true
}

// answerAny answers a query for ANY: over UDP one record set (RFC 8482 §4.2, which keeps ANY from
// being an amplifier), over TCP all of them. It reports whether the name had any data.
func answerAny(m *dns.Msg, n *node, owner string, wildcard, tcp bool) bool {
	if !n.hasData() {
		return false
	}
	for _, s := range n.merged {
		m.Answer = appendOwned(m.Answer, s.rrs, owner, wildcard)
		if !tcp {
			break
		}
	}
	return true
}

// appendOwned appends records, renamed to owner when they come from a wildcard. Stored records are
// shared by every query and never modified; only synthesised copies are.
func appendOwned(dst, rrs []dns.RR, owner string, wildcard bool) []dns.RR {
	if !wildcard {
		return append(dst, rrs...)
	}
	for _, rr := range rrs {
		c := dns.Copy(rr)
		c.Header().Name = owner
		dst = append(dst, c)
	}
	return dst
}

// chainHas reports whether a CNAME chain already passed through name (a loop).
func chainHas(answers []dns.RR, name string) bool {
	for _, rr := range answers {
		if strings.EqualFold(rr.Header().Name, name) {
			return true
		}
	}
	return false
}
