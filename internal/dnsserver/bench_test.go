package dnsserver

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"testing"

	"github.com/miekg/dns"
)

// benchServer is a server (not listening) with n A records in the default view.
func benchServer(b *testing.B, n int) *Server {
	s, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone},
		Views: []ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	_ = s.Update("default", func(tx *Txn) {
		for i := range n {
			name := fmt.Sprintf("host%d.%s", i, testZone)
			rr := &dns.A{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 300}, A: net.IPv4(10, byte(i>>16), byte(i>>8), byte(i))}
			if err := tx.Replace(name, dns.TypeA, []dns.RR{rr}); err != nil {
				b.Fatal(err)
			}
		}
	})
	return s
}

// BenchmarkQuery is the in-process cost of one query (view selection, lookup, packing) in a view of
// 10,000 names, without the sockets.
func BenchmarkQuery(b *testing.B) {
	benchQueries(b, benchServer(b, 10000), map[string]*dns.Msg{
		"A":        question("host1234.example.test.", dns.TypeA),
		"NXDOMAIN": question("nope.example.test.", dns.TypeA),
		"REFUSED":  question("www.other.org.", dns.TypeA),
	})
}

// BenchmarkQueryMillion is BenchmarkQuery's A and NXDOMAIN in a view of a million names (make
// bench-million's size), where the name index is largest.
func BenchmarkQueryMillion(b *testing.B) {
	benchQueries(b, benchServer(b, 1_000_000), map[string]*dns.Msg{
		"A":        question("host123456.example.test.", dns.TypeA),
		"NXDOMAIN": question("nope.example.test.", dns.TypeA),
	})
}

// benchQueries runs one sub-benchmark per question, in name order.
func benchQueries(b *testing.B, s *Server, questions map[string]*dns.Msg) {
	client := netip.MustParseAddr("127.0.0.1")
	for _, name := range slices.Sorted(maps.Keys(questions)) {
		q := questions[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.pack(s.respond(q, client, false), q, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpdateOneName is the cost of a batch changing one name in a view of 10,000 names: the
// new snapshot shares every other node and copies the path to the changed name in the name index.
func BenchmarkUpdateOneName(b *testing.B) {
	s := benchServer(b, 10000)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		rr := &dns.A{Hdr: dns.RR_Header{Name: "www.example.test.", Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 300}, A: net.IPv4(10, 0, byte(i>>8), byte(i))}
		_ = s.Update("default", func(tx *Txn) {
			if err := tx.Replace("www.example.test.", dns.TypeA, []dns.RR{rr}); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkUpdateBatch is the cost of a batch replacing the A records of 100 names in a view of N
// names (one event's write at make bench-million's shape, without the provider), a different 100
// each time; building the 100 records is part of the op. A commit whose cost follows the batch, not
// N, has the same ns/op and B/op at every N.
func BenchmarkUpdateBatch(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("names=%d", n), func(b *testing.B) {
			s := benchServer(b, n)
			round := 0
			b.ReportAllocs()
			for b.Loop() {
				round++
				first := round * 100 % n
				_ = s.Update("default", func(tx *Txn) {
					for i := first; i < first+100; i++ {
						name := fmt.Sprintf("host%d.%s", i, testZone)
						rr := &dns.A{Hdr: dns.RR_Header{Name: name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 300}, A: net.IPv4(11, byte(round), byte(i>>8), byte(i))}
						if err := tx.Replace(name, dns.TypeA, []dns.RR{rr}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
