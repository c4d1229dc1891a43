package dnsserver

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

const (
	xfrKey    = "xfr-key."
	xfrSecret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=" // base64, as tsig-keygen prints
	otherKey  = "other-key."
)

// transferFrom runs an AXFR of the test zone from a local address, signed with key/secret (or not,
// when key is empty), and returns the records or the error.
func transferFrom(t *testing.T, s *Server, local, key, secret string) ([]dns.RR, error) {
	t.Helper()
	m := new(dns.Msg)
	m.SetAxfr(testZone)
	tr := &dns.Transfer{DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second}
	if key != "" {
		m.SetTsig(key, dns.HmacSHA256, 300, time.Now().Unix())
		tr.TsigSecret = map[string]string{key: secret}
	}
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	conn, err := d.Dial("tcp", s.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	tr.Conn = &dns.Conn{Conn: conn}
	ch, err := tr.In(m, s.Addrs()[0])
	if err != nil {
		return nil, err
	}
	var out []dns.RR
	for env := range ch {
		if env.Error != nil {
			return out, env.Error
		}
		out = append(out, env.RR...)
	}
	return out, nil
}

func TestAXFROnlyWithTheKeyFromTheListedSubnet(t *testing.T) {
	s := start(t, Config{
		TSIGKeys: map[string]string{xfrKey: xfrSecret, otherKey: "b3RoZXItc2VjcmV0"},
		AXFR:     []AXFRAllow{{Subnet: netip.MustParsePrefix("127.0.0.1/32"), Key: "xfr-key"}},
		Views:    []ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}},
	})
	// Enough records for several transfer messages.
	var rrs []string
	for i := range 600 {
		rrs = append(rrs, "h"+strconv.Itoa(i)+".example.test. 60 IN TXT \""+strings.Repeat("t", 60)+"\"")
	}
	set(t, s, "default", append(rrs, "www.example.test. 60 IN A 10.0.0.1")...)
	set(t, s, "internal", "www.example.test. 60 IN A 10.9.9.9")

	got, err := transferFrom(t, s, "127.0.0.1", xfrKey, xfrSecret)
	if err != nil {
		t.Fatalf("signed AXFR from the listed subnet: %v", err)
	}
	if len(got) != 1+1+600+1+1 || got[0].Header().Rrtype != dns.TypeSOA || got[len(got)-1].Header().Rrtype != dns.TypeSOA {
		t.Fatalf("AXFR: %d records (first %v, last %v), want SOA, NS, 601 records, SOA", len(got), got[0], got[len(got)-1])
	}
	found := false
	for _, rr := range got {
		if a, ok := rr.(*dns.A); ok && a.Hdr.Name == "www.example.test." && a.A.String() == "10.0.0.1" {
			found = true
		}
	}
	if !found {
		t.Error("AXFR lacks www.example.test A 10.0.0.1 of the client's view")
	}

	for _, c := range []struct {
		what, local, key, secret, want string
	}{
		{"unsigned", "127.0.0.1", "", "", "rcode: 5"},                          // REFUSED
		{"wrong secret", "127.0.0.1", xfrKey, "d3Jvbmctc2VjcmV0", "signature"}, // NOTAUTH, unsigned
		{"key not listed", "127.0.0.1", otherKey, "b3RoZXItc2VjcmV0", "rcode: 5"},
		{"client outside the subnet", "127.0.0.2", xfrKey, xfrSecret, "rcode: 5"},
	} {
		got, err := transferFrom(t, s, c.local, c.key, c.secret)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(got) > 0 {
			t.Errorf("AXFR %s: %d records, error %v, want none and an error containing %q", c.what, len(got), err, c.want)
		}
	}
	// AXFR over UDP is refused.
	m := new(dns.Msg)
	m.SetAxfr(testZone)
	if r := ask(t, s, "udp", "127.0.0.1", m); r.Rcode != dns.RcodeRefused {
		t.Errorf("AXFR over UDP: %s, want REFUSED", dns.RcodeToString[r.Rcode])
	}
}
