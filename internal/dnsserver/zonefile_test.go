package dnsserver

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "static.zone")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const staticZone = `$ORIGIN example.test.
$TTL 120
@        IN SOA ns.other. admin.other. 1 2 3 4 5   ; ignored: the server's own SOA wins
@        IN NS  ns.other.                          ; ignored too
@        IN MX  10 mail.example.test.
mail     IN A   192.0.2.25
_sip._tcp IN SRV 10 60 5060 sip.example.test.
static   IN TXT "from the zone file"
`

func TestZoneFileRecordsServed(t *testing.T) {
	all := writeFile(t, staticZone)
	internalOnly := writeFile(t, "$ORIGIN example.test.\nvpn 60 IN A 10.8.0.1\n")
	s := start(t, Config{
		Views:     []ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}},
		ZoneFiles: []ZoneFile{{Path: all}, {Path: internalOnly, View: "internal"}},
	})
	for _, local := range []string{"127.0.0.1", "127.0.0.2"} {
		if got := answers(ask(t, s, "udp", local, question("example.test.", dns.TypeMX))); !slices.Equal(got, []string{"example.test. MX 10 mail.example.test."}) {
			t.Errorf("MX from %s: %q", local, got)
		}
		if got := answers(ask(t, s, "tcp", local, question("_sip._tcp.example.test.", dns.TypeSRV))); !slices.Equal(got, []string{"_sip._tcp.example.test. SRV 10 60 5060 sip.example.test."}) {
			t.Errorf("SRV from %s: %q", local, got)
		}
		r := ask(t, s, "udp", local, question("example.test.", dns.TypeSOA))
		if soa := r.Answer[0].(*dns.SOA); soa.Ns != "ns1.example.test." {
			t.Errorf("SOA from %s: %v, want the server's own", local, soa)
		}
	}
	if got := answers(ask(t, s, "udp", "127.0.0.2", question("vpn.example.test.", dns.TypeA))); !slices.Equal(got, []string{"vpn.example.test. A 10.8.0.1"}) {
		t.Errorf("internal-only record from the internal view: %q", got)
	}
	if r := ask(t, s, "udp", "127.0.0.1", question("vpn.example.test.", dns.TypeA)); r.Rcode != dns.RcodeNameError {
		t.Errorf("internal-only record from the default view: %s %v", dns.RcodeToString[r.Rcode], r.Answer)
	}
	// Dynamic writes may not take over a zone-file record set, nor put a CNAME beside one; other types
	// at the same name are fine.
	_ = s.Update("default", func(tx *Txn) {
		txt, _ := dns.NewRR("static.example.test. 60 IN TXT other")
		if err := tx.Replace("static.example.test", dns.TypeTXT, []dns.RR{txt}); err == nil || !strings.Contains(err.Error(), "zone file") {
			t.Errorf("replace a zone-file set: %v", err)
		}
		cn, _ := dns.NewRR("static.example.test. 60 IN CNAME x.example.net.")
		if err := tx.Replace("static.example.test", dns.TypeCNAME, []dns.RR{cn}); err == nil {
			t.Error("CNAME beside a zone-file record accepted")
		}
		a, _ := dns.NewRR("static.example.test. 60 IN A 10.0.0.1")
		if err := tx.Replace("static.example.test", dns.TypeA, []dns.RR{a}); err != nil {
			t.Errorf("A beside a zone-file TXT: %v", err)
		}
	})
	if got := answers(ask(t, s, "udp", "", question("static.example.test.", dns.TypeTXT))); !slices.Equal(got, []string{`static.example.test. TXT "from the zone file"`}) {
		t.Errorf("zone-file TXT changed: %q", got)
	}
}

func TestBadZoneFilesNamed(t *testing.T) {
	for body, want := range map[string]string{
		"www.other.org. 60 IN A 10.0.0.1\n":                                 "not in any zone",
		"$ORIGIN example.test.\nwww 60 IN A 10.0.0.1\nwww 60 IN CNAME x.\n": "CNAME cannot share",
		"$ORIGIN example.test.\nsub 60 IN NS ns.sub\n":                      "delegations",
		"$ORIGIN example.test.\nwww 60 IN A not-an-address\n":               "static.zone",
	} {
		p := writeFile(t, body)
		_, err := New(Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}, ZoneFiles: []ZoneFile{{Path: p}}}, nil)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "zone file") {
			t.Errorf("%q: error %v, want one naming the zone file and containing %q", body, err, want)
		}
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	base := func() Config { return Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{testZone}} }
	cases := map[string]func(c *Config){
		"zones":        func(c *Config) { c.Zones = nil },
		"views[0]":     func(c *Config) { c.Views = []ViewConfig{{Name: ""}} },
		"views[1]":     func(c *Config) { c.Views = []ViewConfig{{Name: "a"}, {Name: "a"}} },
		"axfr[0]":      func(c *Config) { c.AXFR = []AXFRAllow{{Subnet: netip.MustParsePrefix("10.0.0.0/8"), Key: "nokey"}} },
		"maxUDPSize":   func(c *Config) { c.MaxUDPSize = 100 },
		"listen":       func(c *Config) { c.Listen = nil },
		"zoneFiles[0]": func(c *Config) { c.ZoneFiles = []ZoneFile{{Path: "/x", View: "nope"}} },
	}
	for field, mutate := range cases {
		c := base()
		mutate(&c)
		if _, err := New(c, nil); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming %s", field, err, field)
		}
	}
}
