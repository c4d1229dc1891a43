package publicip

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"
)

func TestSTUNSourceAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mapped string
		mode   stunMode
	}{
		{"XOR-MAPPED-ADDRESS IPv4", "203.0.113.7", stunAnswerXOR},
		{"XOR-MAPPED-ADDRESS IPv6", "2001:db8::7", stunAnswerXOR},
		{"MAPPED-ADDRESS fallback", "203.0.113.8", stunAnswerMapped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startSTUNServer(t, tc.mapped)
			srv.set(func(s *stunServer) { s.mode = tc.mode })
			got := lookupOK(t, &STUNSource{Server: srv.Addr})
			if len(got) != 1 || got[0].String() != tc.mapped {
				t.Fatalf("got %v, want %s", got, tc.mapped)
			}
		})
	}
}

// Lost requests are sent again (RFC 5389 §7.2.1) with the same transaction ID.
func TestSTUNSourceRetransmits(t *testing.T) {
	srv := startSTUNServer(t, "203.0.113.9")
	srv.set(func(s *stunServer) { s.drop = 2 })
	got := lookupOK(t, &STUNSource{Server: srv.Addr, InitialRTO: 20 * time.Millisecond})
	if len(got) != 1 || got[0].String() != "203.0.113.9" {
		t.Fatalf("got %v", got)
	}
	if n := srv.Requests(); n != 3 {
		t.Fatalf("server saw %d requests, want 3 (two lost, one answered)", n)
	}
}

// An answer for another transaction (a stray or spoofed datagram) is ignored and the real one used.
func TestSTUNSourceIgnoresOtherTransactions(t *testing.T) {
	srv := startSTUNServer(t, "203.0.113.10")
	srv.set(func(s *stunServer) { s.prefix = []stunMode{stunAnswerWrongTx, stunAnswerGarbage} })
	got := lookupOK(t, &STUNSource{Server: srv.Addr, InitialRTO: 20 * time.Millisecond})
	if len(got) != 1 || got[0].String() != "203.0.113.10" {
		t.Fatalf("got %v, want the answer to our own transaction", got)
	}
}

func TestSTUNSourceFailures(t *testing.T) {
	t.Run("garbage only", func(t *testing.T) {
		srv := startSTUNServer(t, "203.0.113.11")
		srv.set(func(s *stunServer) { s.mode = stunAnswerGarbage })
		wantLookupError(t, &STUNSource{Server: srv.Addr, InitialRTO: 5 * time.Millisecond}, "ignored not a STUN message")
	})
	t.Run("error response", func(t *testing.T) {
		srv := startSTUNServer(t, "203.0.113.11")
		srv.set(func(s *stunServer) { s.mode = stunAnswerError })
		wantLookupError(t, &STUNSource{Server: srv.Addr}, `error 420 "Unauthorized"`)
	})
	t.Run("silent server, bounded by the lookup timeout", func(t *testing.T) {
		srv := startSTUNServer(t, "203.0.113.11")
		srv.set(func(s *stunServer) { s.mode = stunAnswerNothing })
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := (&STUNSource{Server: srv.Addr, InitialRTO: 50 * time.Millisecond}).Lookup(ctx)
		if err == nil {
			t.Fatal("no error from a silent server")
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("lookup took %v, want it bounded by the 300ms timeout", el)
		}
		if n := srv.Requests(); n < 2 {
			t.Fatalf("server saw %d requests, want retransmissions", n)
		}
		t.Log(err)
	})
	t.Run("silent server, all retransmissions", func(t *testing.T) {
		srv := startSTUNServer(t, "203.0.113.11")
		srv.set(func(s *stunServer) { s.mode = stunAnswerNothing })
		wantLookupError(t, &STUNSource{Server: srv.Addr, InitialRTO: time.Millisecond}, "after 7 requests")
		if n := srv.Requests(); n != stunRc {
			t.Fatalf("server saw %d requests, want Rc = %d", n, stunRc)
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := pc.LocalAddr().String()
		pc.Close()
		wantLookupError(t, &STUNSource{Server: addr, InitialRTO: 20 * time.Millisecond}, "connection refused")
	})
}

// Cancelling the context interrupts a lookup waiting for an answer.
func TestSTUNSourceCancel(t *testing.T) {
	srv := startSTUNServer(t, "203.0.113.12")
	srv.set(func(s *stunServer) { s.mode = stunAnswerNothing })
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := (&STUNSource{Server: srv.Addr, InitialRTO: 10 * time.Second}).Lookup(ctx)
		errc <- err
	}()
	for srv.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("no error after cancel")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("lookup still waiting 5s after cancel (the RTO is 10s)")
	}
}

func TestSTUNSourceThroughDiscoverer(t *testing.T) {
	srv := startSTUNServer(t, "203.0.113.13")
	d := mustNew(t, Config{STUNServer: srv.Addr})
	a := mustRefresh(t, d)
	if a.V4 != netip.MustParseAddr("203.0.113.13") || a.Source != "stun "+srv.Addr {
		t.Fatalf("got %s from %q", a, a.Source)
	}
}
