package dnsserver

import (
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// TestQueriesNeverSeeAHalfAppliedBatch: each batch moves alias.example.test to a new target name and
// creates that name's A record, deleting the previous pair. A query for alias A crosses both names, so
// it would see a dangling CNAME (NXDOMAIN) if a batch were visible half-way. Queries run in-process
// and over UDP from several goroutines while batches swap; run with -race.
func TestQueriesNeverSeeAHalfAppliedBatch(t *testing.T) {
	s := start(t, Config{})
	write := func(gen int) {
		err := s.Update("default", func(tx *Txn) {
			if gen > 0 {
				prev := fmt.Sprintf("t%d.example.test.", gen-1)
				if err := tx.Replace(prev, dns.TypeA, nil); err != nil {
					t.Error(err)
				}
			}
			target := fmt.Sprintf("t%d.example.test.", gen)
			cname, _ := dns.NewRR("alias.example.test. 60 IN CNAME " + target)
			a, _ := dns.NewRR(fmt.Sprintf("%s 60 IN A 10.0.%d.%d", target, gen/250, gen%250))
			for _, rr := range []dns.RR{cname, a} {
				if err := tx.Replace(rr.Header().Name, rr.Header().Rrtype, []dns.RR{rr}); err != nil {
					t.Error(err)
				}
			}
		})
		if err != nil {
			t.Error(err)
		}
	}
	write(0)

	var stop atomic.Bool
	var bad atomic.Int64
	var queries atomic.Int64
	check := func(r *dns.Msg) {
		queries.Add(1)
		if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 2 {
			bad.Add(1)
			return
		}
		cname := r.Answer[0].(*dns.CNAME)
		a := r.Answer[1].(*dns.A)
		if a.Hdr.Name != cname.Target {
			bad.Add(1)
		}
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := question("alias.example.test.", dns.TypeA)
			for !stop.Load() {
				if i%2 == 0 {
					check(s.respond(q, netip.MustParseAddr("127.0.0.1"), false))
				} else {
					check(ask(t, s, "udp", "", q))
				}
			}
		}()
	}
	for gen := 1; gen <= 2000; gen++ {
		write(gen)
	}
	stop.Store(true)
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d of %d answers saw a half-applied batch", bad.Load(), queries.Load())
	}
	if queries.Load() < 100 {
		t.Fatalf("only %d queries ran during the swaps", queries.Load())
	}
	// The old targets are gone: exactly one t-name is left.
	if r := ask(t, s, "udp", "", question("t1999.example.test.", dns.TypeA)); r.Rcode != dns.RcodeNameError {
		t.Fatalf("t1999 after the last batch: %s", dns.RcodeToString[r.Rcode])
	}
}
