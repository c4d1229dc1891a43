package dnsserver

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/miekg/dns"
)

// TestViewsOverUDPAndTCP: two clients on different loopback addresses get their own view's answer,
// over both transports.
func TestViewsOverUDPAndTCP(t *testing.T) {
	s := start(t, Config{Views: []ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}}})
	set(t, s, "internal", "www.example.test. 60 IN A 10.0.0.5")
	set(t, s, "default", "www.example.test. 60 IN A 203.0.113.7")
	for _, network := range []string{"udp", "tcp"} {
		for local, want := range map[string]string{"127.0.0.1": "203.0.113.7", "127.0.0.2": "10.0.0.5"} {
			r := ask(t, s, network, local, question("www.example.test.", dns.TypeA))
			got := answers(r)
			if r.Rcode != dns.RcodeSuccess || !r.Authoritative || r.RecursionAvailable || len(got) != 1 || got[0] != "www.example.test. A "+want {
				t.Errorf("%s from %s: rcode %s aa=%v ra=%v answer %q, want %s", network, local, dns.RcodeToString[r.Rcode], r.Authoritative, r.RecursionAvailable, got, want)
			}
		}
	}
}

// TestLongestPrefixWins: a /32 inside a /8 takes its clients; the /8 takes the rest of its range;
// everything else goes to the default view.
func TestLongestPrefixWins(t *testing.T) {
	cfg := Config{
		Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone},
		Views: []ViewConfig{
			{Name: "lab", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}},
			{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32"), netip.MustParsePrefix("fd00::/64")}},
		},
	}
	c, err := cfg.normalized()
	if err != nil {
		t.Fatal(err)
	}
	vt := newViewTable(&c)
	for addr, want := range map[string]string{
		"127.0.0.2": "internal", "127.0.0.1": "lab", "127.9.9.9": "lab", "10.0.0.1": "default",
		"fd00::1": "internal", "fd00:0:0:1::1": "lab", "2001:db8::1": "default", "::ffff:127.0.0.2": "internal",
	} {
		if got := vt.pick(netip.MustParseAddr(addr)).name; got != want {
			t.Errorf("%s: view %s, want %s", addr, got, want)
		}
	}
	// Over the wire too.
	s := start(t, cfg)
	set(t, s, "lab", "www.example.test. 60 IN A 10.1.1.1")
	set(t, s, "internal", "www.example.test. 60 IN A 10.2.2.2")
	for local, want := range map[string]string{"127.0.0.1": "10.1.1.1", "127.0.0.2": "10.2.2.2"} {
		if got := answers(ask(t, s, "udp", local, question("www.example.test.", dns.TypeA))); !slices.Equal(got, []string{"www.example.test. A " + want}) {
			t.Errorf("from %s: %q, want %s", local, got, want)
		}
	}
}

// TestClientSubnetOption: the ECS option picks the view only when UseClientSubnet is on.
func TestClientSubnetOption(t *testing.T) {
	for _, use := range []bool{false, true} {
		s := start(t, Config{UseClientSubnet: use, Views: []ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}})
		set(t, s, "internal", "www.example.test. 60 IN A 10.0.0.5")
		set(t, s, "default", "www.example.test. 60 IN A 203.0.113.7")
		m := question("www.example.test.", dns.TypeA)
		m.SetEdns0(1232, false)
		opt := m.IsEdns0()
		opt.Option = append(opt.Option, &dns.EDNS0_SUBNET{Code: dns.EDNS0SUBNET, Family: 1, SourceNetmask: 24, Address: netip.MustParseAddr("10.1.2.0").AsSlice()})
		want := "203.0.113.7"
		if use {
			want = "10.0.0.5"
		}
		if got := answers(ask(t, s, "udp", "127.0.0.1", m)); !slices.Equal(got, []string{"www.example.test. A " + want}) {
			t.Errorf("UseClientSubnet=%v: %q, want %s", use, got, want)
		}
	}
}
