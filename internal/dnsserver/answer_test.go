package dnsserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

func TestRefusedOutsideZones(t *testing.T) {
	s := start(t, Config{})
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1")
	for _, name := range []string{"www.other.org.", "notexample.test.", "test.", "."} {
		m := question(name, dns.TypeA) // RD set: a recursive query
		for _, network := range []string{"udp", "tcp"} {
			r := ask(t, s, network, "", m)
			if r.Rcode != dns.RcodeRefused || r.RecursionAvailable || r.Authoritative || len(r.Answer)+len(r.Ns) > 0 {
				t.Errorf("%s over %s: rcode %s ra=%v aa=%v answer %v ns %v, want REFUSED and nothing else", name, network, dns.RcodeToString[r.Rcode], r.RecursionAvailable, r.Authoritative, r.Answer, r.Ns)
			}
		}
	}
}

// negative checks a negative answer: rcode, no answer, the zone's SOA in authority with the negative
// TTL (SOA minimum, 30 s by default, below the SOA's own 300 s).
func negative(t *testing.T, r *dns.Msg, rcode int) {
	t.Helper()
	if r.Rcode != rcode || !r.Authoritative || len(r.Answer) != 0 {
		t.Fatalf("rcode %s aa=%v answer %v, want %s with no answer", dns.RcodeToString[r.Rcode], r.Authoritative, r.Answer, dns.RcodeToString[rcode])
	}
	if len(r.Ns) != 1 {
		t.Fatalf("authority %v, want the SOA", r.Ns)
	}
	soa, ok := r.Ns[0].(*dns.SOA)
	if !ok || soa.Hdr.Name != testZone || soa.Hdr.Ttl != 30 || soa.Minttl != 30 {
		t.Fatalf("authority %v, want the SOA of %s with TTL 30", r.Ns[0], testZone)
	}
}

func TestNXDOMAINAndNODATA(t *testing.T) {
	s := start(t, Config{})
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1", "a.b.c.example.test. 60 IN TXT hello")
	negative(t, ask(t, s, "udp", "", question("nope.example.test.", dns.TypeA)), dns.RcodeNameError)
	negative(t, ask(t, s, "udp", "", question("x.www.example.test.", dns.TypeA)), dns.RcodeNameError)
	negative(t, ask(t, s, "udp", "", question("www.example.test.", dns.TypeAAAA)), dns.RcodeSuccess)
	// Empty non-terminals exist (RFC 8020): NODATA, not NXDOMAIN.
	negative(t, ask(t, s, "udp", "", question("b.c.example.test.", dns.TypeA)), dns.RcodeSuccess)
	negative(t, ask(t, s, "udp", "", question("c.example.test.", dns.TypeTXT)), dns.RcodeSuccess)
	// Deleting the only name below makes them disappear.
	if err := s.Update("default", func(tx *Txn) {
		if err := tx.Replace("a.b.c.example.test", dns.TypeTXT, nil); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	negative(t, ask(t, s, "udp", "", question("c.example.test.", dns.TypeTXT)), dns.RcodeNameError)
}

func TestApexSOAAndNS(t *testing.T) {
	s := start(t, Config{NameServers: []string{"ns1.example.test", "ns2.example.net"}, SOA: SOAConfig{RName: "dns-admin.example.test"}})
	before, _ := s.Serial("default")
	r := ask(t, s, "udp", "", question(testZone, dns.TypeSOA))
	soa, ok := r.Answer[0].(*dns.SOA)
	if !ok || soa.Ns != "ns1.example.test." || soa.Mbox != "dns-admin.example.test." || soa.Serial != before {
		t.Fatalf("SOA %v, want mname ns1.example.test., rname dns-admin.example.test., serial %d", r.Answer, before)
	}
	ns := answers(ask(t, s, "tcp", "", question(testZone, dns.TypeNS)))
	if !slices.Equal(ns, []string{"example.test. NS ns1.example.test.", "example.test. NS ns2.example.net."}) {
		t.Fatalf("NS %q", ns)
	}
	// Every change bumps the serial by one; a batch that changes nothing does not.
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1")
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1")
	r = ask(t, s, "udp", "", question(testZone, dns.TypeSOA))
	if got := r.Answer[0].(*dns.SOA).Serial; got != before+1 {
		t.Fatalf("serial %d after one change and one no-op, want %d", got, before+1)
	}
}

func TestWildcards(t *testing.T) {
	s := start(t, Config{})
	set(t, s, "default",
		"*.wc.example.test. 60 IN A 10.0.0.9",
		"exact.wc.example.test. 60 IN A 10.0.0.1",
		"x.ent.wc.example.test. 60 IN A 10.0.0.2", // makes ent.wc an empty non-terminal
		"*.cn.example.test. 60 IN CNAME www.example.test.",
		"www.example.test. 60 IN A 10.0.0.7",
	)
	for q, want := range map[string][]string{
		"Foo.wc.example.test.":     {"Foo.wc.example.test. A 10.0.0.9"}, // owner is the question's name, as asked
		"a.b.wc.example.test.":     {"a.b.wc.example.test. A 10.0.0.9"},
		"exact.wc.example.test.":   {"exact.wc.example.test. A 10.0.0.1"}, // an existing name beats the wildcard
		"*.wc.example.test.":       {"*.wc.example.test. A 10.0.0.9"},
		"y.x.ent.wc.example.test.": nil, // closest encloser x.ent.wc has no wildcard: NXDOMAIN
		"ent.wc.example.test.":     nil, // exists (empty non-terminal): the wildcard does not apply
		"app.cn.example.test.":     {"app.cn.example.test. CNAME www.example.test.", "www.example.test. A 10.0.0.7"},
	} {
		r := ask(t, s, "udp", "", question(q, dns.TypeA))
		if got := answers(r); !slices.Equal(got, want) {
			t.Errorf("%s: %q (rcode %s), want %q", q, got, dns.RcodeToString[r.Rcode], want)
		}
	}
	negative(t, ask(t, s, "udp", "", question("y.x.ent.wc.example.test.", dns.TypeA)), dns.RcodeNameError)
	negative(t, ask(t, s, "udp", "", question("ent.wc.example.test.", dns.TypeA)), dns.RcodeSuccess)
	negative(t, ask(t, s, "udp", "", question("foo.wc.example.test.", dns.TypeTXT)), dns.RcodeSuccess)
}

func TestCNAMEChasing(t *testing.T) {
	s := start(t, Config{Zones: []string{testZone, "second.test"}})
	set(t, s, "default",
		"alias.example.test. 60 IN CNAME mid.second.test.",
		"mid.second.test. 60 IN CNAME www.example.test.",
		"www.example.test. 60 IN A 10.0.0.1",
		"out.example.test. 60 IN CNAME lb.example.net.",
		"dangling.example.test. 60 IN CNAME gone.example.test.",
		"loop1.example.test. 60 IN CNAME loop2.example.test.",
		"loop2.example.test. 60 IN CNAME loop1.example.test.",
	)
	cases := []struct {
		name  string
		qtype uint16
		rcode int
		want  []string
	}{
		{"alias.example.test.", dns.TypeA, dns.RcodeSuccess, []string{"alias.example.test. CNAME mid.second.test.", "mid.second.test. CNAME www.example.test.", "www.example.test. A 10.0.0.1"}},
		{"alias.example.test.", dns.TypeCNAME, dns.RcodeSuccess, []string{"alias.example.test. CNAME mid.second.test."}},
		{"out.example.test.", dns.TypeA, dns.RcodeSuccess, []string{"out.example.test. CNAME lb.example.net."}},
		// RFC 6604: the rcode is the one of the last name in the chain.
		{"dangling.example.test.", dns.TypeA, dns.RcodeNameError, []string{"dangling.example.test. CNAME gone.example.test."}},
		{"loop1.example.test.", dns.TypeA, dns.RcodeSuccess, []string{"loop1.example.test. CNAME loop2.example.test.", "loop2.example.test. CNAME loop1.example.test."}},
	}
	for _, c := range cases {
		r := ask(t, s, "udp", "", question(c.name, c.qtype))
		if got := answers(r); r.Rcode != c.rcode || !slices.Equal(got, c.want) {
			t.Errorf("%s %s: %s %q, want %s %q", c.name, dns.TypeToString[c.qtype], dns.RcodeToString[r.Rcode], got, dns.RcodeToString[c.rcode], c.want)
		}
	}
}

func TestCNAMEBesideOtherDataRefused(t *testing.T) {
	s := start(t, Config{})
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1", "app.example.test. 60 IN CNAME www.example.test.")
	_ = s.Update("default", func(tx *Txn) {
		cname, _ := dns.NewRR("www.example.test. 60 IN CNAME x.example.net.")
		if err := tx.Replace("www.example.test", dns.TypeCNAME, []dns.RR{cname}); err == nil || !strings.Contains(err.Error(), "CNAME cannot share") {
			t.Errorf("CNAME beside A: %v", err)
		}
		txt, _ := dns.NewRR("app.example.test. 60 IN TXT x")
		if err := tx.Replace("app.example.test", dns.TypeTXT, []dns.RR{txt}); err == nil {
			t.Error("TXT beside CNAME accepted")
		}
		a, _ := dns.NewRR("www.other.org. 60 IN A 10.0.0.1")
		if err := tx.Replace("www.other.org", dns.TypeA, []dns.RR{a}); err == nil || !strings.Contains(err.Error(), "not in any zone") {
			t.Errorf("outside the zones: %v", err)
		}
		soa, _ := dns.NewRR("example.test. 60 IN SOA a. b. 1 2 3 4 5")
		if err := tx.Replace("example.test", dns.TypeSOA, []dns.RR{soa}); err == nil {
			t.Error("apex SOA accepted")
		}
	})
	if got := answers(ask(t, s, "udp", "", question("www.example.test.", dns.TypeA))); !slices.Equal(got, []string{"www.example.test. A 10.0.0.1"}) {
		t.Fatalf("refused changes leaked: %q", got)
	}
}

func TestCaseInsensitiveQuestionEchoed(t *testing.T) {
	s := start(t, Config{})
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1")
	r := ask(t, s, "udp", "", question("WwW.ExAmPlE.TeSt.", dns.TypeA))
	if r.Question[0].Name != "WwW.ExAmPlE.TeSt." || len(r.Answer) != 1 || r.Answer[0].(*dns.A).A.String() != "10.0.0.1" {
		t.Fatalf("question %v answer %v", r.Question, r.Answer)
	}
}

func TestANYIsMinimalOverUDP(t *testing.T) {
	s := start(t, Config{})
	set(t, s, "default", "www.example.test. 60 IN A 10.0.0.1", "www.example.test. 60 IN TXT hi", "www.example.test. 60 IN AAAA 2001:db8::1")
	if n := len(ask(t, s, "udp", "", question("www.example.test.", dns.TypeANY)).Answer); n != 1 {
		t.Errorf("ANY over UDP: %d records, want one record set (RFC 8482)", n)
	}
	if n := len(ask(t, s, "tcp", "", question("www.example.test.", dns.TypeANY)).Answer); n != 3 {
		t.Errorf("ANY over TCP: %d records, want all 3", n)
	}
}

// bigTXT writes 20 TXT strings of 200 bytes: about 4.3 KB of answer.
func bigTXT(t *testing.T, s *Server) {
	var rrs []string
	for i := range 20 {
		rrs = append(rrs, fmt.Sprintf("big.example.test. 60 IN TXT \"%02d%s\"", i, strings.Repeat("x", 198)))
	}
	set(t, s, "default", rrs...)
}

func TestTruncationAndEDNS0(t *testing.T) {
	s := start(t, Config{MaxUDPSize: 6000})
	bigTXT(t, s)
	set(t, s, "default", "mid.example.test. 60 IN TXT \""+strings.Repeat("m", 250)+"\" \""+strings.Repeat("m", 250)+"\" \""+strings.Repeat("m", 200)+"\"")

	plain := question("big.example.test.", dns.TypeTXT)
	r := ask(t, s, "udp", "", plain)
	if !r.Truncated || len(r.Answer) != 0 || r.Rcode != dns.RcodeSuccess {
		t.Fatalf("UDP without EDNS0: tc=%v answer %d, want TC and an empty answer", r.Truncated, len(r.Answer))
	}
	if r.IsEdns0() != nil {
		t.Error("answer carries OPT though the query had none")
	}
	r = ask(t, s, "tcp", "", plain)
	if r.Truncated || len(r.Answer) != 20 {
		t.Fatalf("TCP: tc=%v answer %d, want all 20", r.Truncated, len(r.Answer))
	}

	// A client with a 1232-byte buffer gets TC for 4.3 KB but the 750-byte answer whole (which does not
	// fit in 512).
	small := question("big.example.test.", dns.TypeTXT)
	small.SetEdns0(1232, false)
	if r := ask(t, s, "udp", "", small); !r.Truncated || len(r.Answer) != 0 || r.IsEdns0() == nil {
		t.Errorf("EDNS0 1232: tc=%v answer %d opt %v, want TC with OPT", r.Truncated, len(r.Answer), r.IsEdns0())
	}
	mid := question("mid.example.test.", dns.TypeTXT)
	mid.SetEdns0(1232, false)
	if r := ask(t, s, "udp", "", mid); r.Truncated || len(r.Answer) != 1 {
		t.Errorf("EDNS0 1232, 750 bytes: tc=%v answer %d", r.Truncated, len(r.Answer))
	}
	midPlain := question("mid.example.test.", dns.TypeTXT)
	if r := ask(t, s, "udp", "", midPlain); !r.Truncated {
		t.Errorf("no EDNS0, 750 bytes: not truncated")
	}
	// A client with 8 KB gets it over UDP, capped by the server's 6000.
	large := question("big.example.test.", dns.TypeTXT)
	large.SetEdns0(8192, false)
	r = ask(t, s, "udp", "", large)
	if r.Truncated || len(r.Answer) != 20 {
		t.Errorf("EDNS0 8192: tc=%v answer %d, want all 20 in one UDP answer", r.Truncated, len(r.Answer))
	}
	if opt := r.IsEdns0(); opt == nil || opt.UDPSize() != 6000 {
		t.Errorf("OPT %v, want the server's size 6000", opt)
	}
	// EDNS version 1 is not known: BADVERS.
	v1 := question("www.example.test.", dns.TypeA)
	v1.SetEdns0(1232, false)
	v1.IsEdns0().SetVersion(1)
	if r := ask(t, s, "udp", "", v1); r.Rcode != dns.RcodeBadVers {
		t.Errorf("EDNS version 1: rcode %s, want BADVERS", dns.RcodeToString[r.Rcode])
	}
}
