package dnsserver

import (
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
)

const testZone = "example.test."

// start builds and starts a server on a free loopback port; cfg.Listen and cfg.Zones get defaults.
func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	if len(cfg.Listen) == 0 {
		cfg.Listen = []string{"127.0.0.1:0"}
	}
	if len(cfg.Zones) == 0 {
		cfg.Zones = []string{testZone}
	}
	s, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// set writes records into a view, failing the test on any refusal.
func set(t testing.TB, s *Server, view string, rrs ...string) {
	t.Helper()
	groups := map[[2]string][]dns.RR{}
	for _, text := range rrs {
		rr, err := dns.NewRR(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		k := [2]string{rr.Header().Name, dns.TypeToString[rr.Header().Rrtype]}
		groups[k] = append(groups[k], rr)
	}
	var errs []error
	err := s.Update(view, func(tx *Txn) {
		for k, g := range groups {
			if err := tx.Replace(k[0], dns.StringToType[k[1]], g); err != nil {
				errs = append(errs, err)
			}
		}
	})
	if err != nil || len(errs) > 0 {
		t.Fatalf("update %s: %v %v", view, err, errs)
	}
}

// ask sends m over network ("udp" or "tcp") from the local address (e.g. "127.0.0.2"; empty for any).
func ask(t testing.TB, s *Server, network, local string, m *dns.Msg) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: network, Timeout: 5 * time.Second, Dialer: &net.Dialer{Timeout: 5 * time.Second}}
	if local != "" {
		ip := net.ParseIP(local)
		if network == "tcp" {
			c.Dialer.LocalAddr = &net.TCPAddr{IP: ip}
		} else {
			c.Dialer.LocalAddr = &net.UDPAddr{IP: ip}
		}
	}
	r, _, err := c.Exchange(m, s.Addrs()[0])
	if err != nil {
		t.Fatalf("%s query %s from %q: %v", network, m.Question[0].String(), local, err)
	}
	return r
}

func question(name string, qtype uint16) *dns.Msg {
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	return m
}

// answers renders the answer section without TTLs noise-free enough to compare: "name type data".
func answers(r *dns.Msg) []string {
	var out []string
	for _, rr := range r.Answer {
		out = append(out, rrText(rr))
	}
	return out
}

func rrText(rr dns.RR) string {
	h := rr.Header()
	full := rr.String()
	// Drop the header ("name ttl class type") and keep the data.
	data := full[len(h.String()):]
	return h.Name + " " + dns.TypeToString[h.Rrtype] + " " + data
}
