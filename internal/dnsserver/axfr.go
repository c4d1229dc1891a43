package dnsserver

import (
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// transferChunk is the approximate size of one message of a zone transfer (TCP messages may reach
// 64 KiB; staying well below leaves room for the TSIG and compression misses).
const transferChunk = 16 * 1024

// transfer answers AXFR (and IXFR, with a full transfer as RFC 1995 §4 allows) over TCP. Only a client
// in an AXFR subnet whose request is signed with that entry's TSIG key gets the zone; the copy is the
// one of the client's view.
func (s *Server) transfer(w dns.ResponseWriter, req *dns.Msg, v *view) {
	client, _ := clientOf(w.RemoteAddr())
	q := req.Question[0]
	name := strings.ToLower(q.Name)
	snap := v.snap.Load()
	refuse := func(rcode int, reason string, sign bool) {
		s.log.Info("Zone transfer refused", "zone", q.Name, "client", client, "view", v.name, "reason", reason)
		m := new(dns.Msg)
		m.SetRcode(req, rcode)
		if t := req.IsTsig(); sign && t != nil {
			m.SetTsig(t.Hdr.Name, t.Algorithm, t.Fudge, time.Now().Unix())
		}
		_ = w.WriteMsg(m)
	}
	var z *zone
	for _, zz := range snap.zones {
		if zz.name == name {
			z = zz
		}
	}
	if z == nil {
		refuse(dns.RcodeNotAuth, "not a zone of this server", false)
		return
	}
	t := req.IsTsig()
	switch {
	case t == nil:
		refuse(dns.RcodeRefused, "request not signed", false)
		return
	case w.TsigStatus() != nil:
		refuse(dns.RcodeNotAuth, "TSIG: "+w.TsigStatus().Error(), false)
		return
	case !s.transferAllowed(client, dns.CanonicalName(t.Hdr.Name)):
		refuse(dns.RcodeRefused, "client and key not in the AXFR list", true)
		return
	}
	ch := make(chan *dns.Envelope)
	tr := new(dns.Transfer)
	done := make(chan error, 1)
	go func() { done <- tr.Out(w, req, ch) }()
	var chunk []dns.RR
	size := 0
	send := func(rr dns.RR) bool {
		chunk = append(chunk, rr)
		size += dns.Len(rr)
		if size < transferChunk {
			return true
		}
		select {
		case ch <- &dns.Envelope{RR: chunk}:
		case err := <-done:
			s.log.Info("Zone transfer aborted", "zone", q.Name, "client", client, "err", err)
			return false
		}
		chunk, size = nil, 0
		return true
	}
	ok := true
	for _, rr := range zoneRecords(snap, z) {
		if ok = send(rr); !ok {
			break
		}
	}
	if ok && len(chunk) > 0 {
		select {
		case ch <- &dns.Envelope{RR: chunk}:
		case <-done:
			ok = false
		}
	}
	close(ch)
	if ok {
		if err := <-done; err != nil {
			s.log.Info("Zone transfer aborted", "zone", q.Name, "client", client, "err", err)
			return
		}
		s.log.Info("Zone transferred", "zone", q.Name, "client", client, "view", v.name, "serial", z.soa.Serial)
	}
	_ = w.Close()
}

// transferAllowed reports whether an AXFR entry admits the client with the key.
func (s *Server) transferAllowed(client netip.Addr, key string) bool {
	for _, a := range s.cfg.AXFR {
		if a.Key == key && a.Subnet.Contains(client) {
			return true
		}
	}
	return false
}

// zoneRecords lists a zone as a transfer sends it: SOA, NS, every other record in name order, SOA.
func zoneRecords(snap *snapshot, z *zone) []dns.RR {
	type owner struct {
		name string
		n    *node
	}
	var owners []owner
	for name, n := range snap.names.all() {
		// A name below a more specific zone of the server belongs to that zone.
		if inZone(name, z.name) && snap.zoneOf(name) == z {
			owners = append(owners, owner{name, n})
		}
	}
	slices.SortFunc(owners, func(a, b owner) int { return dnsCompare(a.name, b.name) })
	out := []dns.RR{z.soa}
	out = append(out, z.ns...)
	for _, o := range owners {
		for _, s := range o.n.merged {
			out = append(out, s.rrs...)
		}
	}
	return append(out, z.soa)
}

// dnsCompare orders names canonically enough for a readable transfer: by reversed labels.
func dnsCompare(a, b string) int {
	la, lb := dns.SplitDomainName(a), dns.SplitDomainName(b)
	for i, j := len(la)-1, len(lb)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if c := strings.Compare(la[i], lb[j]); c != 0 {
			return c
		}
	}
	return len(la) - len(lb)
}
