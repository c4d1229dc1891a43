package dnsserver

import (
	"net/netip"
	"testing"

	"github.com/miekg/dns"
)

// FuzzPacket feeds arbitrary bytes through the query path as the UDP and TCP listeners do (unpack,
// accept filter, answer, pack with truncation): it must never panic, and an answer must always pack.
func FuzzPacket(f *testing.F) {
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone, "b.test"},
		Views: []ViewConfig{{Name: "v", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}}}, nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, view := range []string{"default", "v"} {
		set(f, s, view,
			"www.example.test. 60 IN A 10.0.0.1",
			"*.wc.example.test. 60 IN TXT wild",
			"c.example.test. 60 IN CNAME www.example.test.",
			"l.example.test. 60 IN CNAME l.example.test.",
			"x.b.test. 60 IN CNAME c.example.test.",
		)
	}
	for _, q := range []struct {
		name  string
		qtype uint16
		edns  bool
	}{
		{"www.example.test.", dns.TypeA, false}, {"a.wc.example.test.", dns.TypeANY, true},
		{"x.b.test.", dns.TypeA, true}, {"l.example.test.", dns.TypeA, false}, {"example.test.", dns.TypeAXFR, false},
		{"other.org.", dns.TypeA, true}, {"example.test.", dns.TypeIXFR, false},
	} {
		m := question(q.name, q.qtype)
		if q.edns {
			m.SetEdns0(1232, true)
		}
		b, err := m.Pack()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, tcp bool) {
		req := new(dns.Msg)
		if err := req.Unpack(raw); err != nil {
			return // the listener answers FORMERR or drops it
		}
		var dh dns.Header
		if len(raw) >= 12 {
			dh = dns.Header{Id: req.Id, Bits: uint16(raw[2])<<8 | uint16(raw[3]), Qdcount: uint16(len(req.Question)),
				Ancount: uint16(len(req.Answer)), Nscount: uint16(len(req.Ns)), Arcount: uint16(len(req.Extra))}
		}
		if acceptQuery(dh) != dns.MsgAccept {
			return
		}
		for _, client := range []string{"127.0.0.1", "127.0.0.2"} {
			resp := s.respond(req, netip.MustParseAddr(client), tcp)
			if _, err := s.pack(resp, req, tcp); err != nil {
				t.Fatalf("answer to %v does not pack: %v", req.Question, err)
			}
		}
	})
}
