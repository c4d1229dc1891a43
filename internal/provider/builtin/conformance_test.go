package builtin

import (
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/provider/conformance"
)

// startServer starts a DNS server on a free loopback port with one default view.
func startServer(t testing.TB, zones ...string) *dnsserver.Server {
	t.Helper()
	srv, err := dnsserver.New(dnsserver.Config{Listen: []string{"127.0.0.1:0"}, Zones: zones}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// lookupUDP asks the server over UDP, with EDNS0 so that big TXT sets fit.
func lookupUDP(addr string) func(t *testing.T, name string, qtype uint16) []dns.RR {
	return func(t *testing.T, name string, qtype uint16) []dns.RR {
		t.Helper()
		m := new(dns.Msg)
		m.SetQuestion(dns.Fqdn(name), qtype)
		m.SetEdns0(1232, false)
		c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
		r, _, err := c.Exchange(m, addr)
		if err != nil {
			t.Fatalf("query %s %s: %v", name, dns.TypeToString[qtype], err)
		}
		if r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError {
			t.Fatalf("query %s %s: rcode %s", name, dns.TypeToString[qtype], dns.RcodeToString[r.Rcode])
		}
		if !r.Authoritative {
			t.Fatalf("query %s %s: answer is not authoritative", name, dns.TypeToString[qtype])
		}
		return r.Answer
	}
}

// TestConformance runs the provider suite and checks every record over UDP against the real server.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Subject {
		srv := startServer(t, conformance.Zone)
		p, err := New(srv, "default")
		if err != nil {
			t.Fatal(err)
		}
		return conformance.Subject{Provider: p, Lookup: lookupUDP(srv.Addrs()[0]), TXTOnWire: conformance.ZoneFileTXTOnWire}
	})
}
