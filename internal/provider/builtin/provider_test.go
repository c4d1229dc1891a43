package builtin

import (
	"context"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// askFrom queries the server over network from a loopback source address.
func askFrom(t *testing.T, addr, network, local, name string, qtype uint16) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: network, Timeout: 5 * time.Second, Dialer: &net.Dialer{Timeout: 5 * time.Second}}
	if network == "tcp" {
		c.Dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
	} else {
		c.Dialer.LocalAddr = &net.UDPAddr{IP: net.ParseIP(local)}
	}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s %s from %s: %v", network, name, local, err)
	}
	return r
}

func values(r *dns.Msg) []string {
	var out []string
	for _, rr := range r.Answer {
		out = append(out, strings.TrimPrefix(rr.String(), rr.Header().String()))
	}
	return out
}

// TestTwoViewsTwoProviders is the split-horizon set-up the controller builds: one provider per view of
// one server; clients on 127.0.0.1 and 127.0.0.2 see their own view over UDP and TCP.
func TestTwoViewsTwoProviders(t *testing.T) {
	srv, err := dnsserver.New(dnsserver.Config{
		Listen: []string{"127.0.0.1:0"}, Zones: []string{"example.com"},
		Views: []dnsserver.ViewConfig{{Name: "internal", Subnets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	internal, err := New(srv, "internal")
	if err != nil {
		t.Fatal(err)
	}
	external, err := New(srv, "default")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(srv, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown view: %v", err)
	}
	ctx := context.Background()
	if err := internal.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewWithTTL("app.example.com", "A", 60, "10.0.0.5")}}); err != nil {
		t.Fatal(err)
	}
	if err := external.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.NewWithTTL("app.example.com", "A", 60, "203.0.113.7")}}); err != nil {
		t.Fatal(err)
	}
	addr := srv.Addrs()[0]
	for _, network := range []string{"udp", "tcp"} {
		for local, want := range map[string]string{"127.0.0.1": "203.0.113.7", "127.0.0.2": "10.0.0.5"} {
			if got := values(askFrom(t, addr, network, local, "app.example.com", dns.TypeA)); !slices.Equal(got, []string{want}) {
				t.Errorf("%s from %s: %q, want %s", network, local, got, want)
			}
		}
		r := askFrom(t, addr, network, "127.0.0.2", "www.other.org", dns.TypeA)
		if r.Rcode != dns.RcodeRefused || r.RecursionAvailable {
			t.Errorf("%s: outside the zones: %s ra=%v, want REFUSED", network, dns.RcodeToString[r.Rcode], r.RecursionAvailable)
		}
	}
	// Each provider lists its own view only.
	eps, _ := internal.Records(ctx)
	if len(eps) != 1 || eps[0].Targets[0] != "10.0.0.5" {
		t.Errorf("internal Records: %v", eps)
	}
}

func TestSRVMXPTRAndPerChangeRejection(t *testing.T) {
	srv := startServer(t, "example.com")
	p, _ := New(srv, "default")
	good := []*endpoint.Endpoint{
		endpoint.NewWithTTL("_http._tcp.example.com", "SRV", 60, "10 5 8080 web.example.com"),
		endpoint.NewWithTTL("example.com", "MX", 60, "10 mail.example.com"),
		endpoint.NewWithTTL("*.apps.example.com", "A", 60, "10.0.0.9"),
		endpoint.NewWithTTL("5.0.0.10.example.com", "PTR", 60, "host.example.com"),
	}
	bad := []*endpoint.Endpoint{
		endpoint.NewWithTTL("bad-srv.example.com", "SRV", 60, "10 5 web.example.com"),
		endpoint.NewWithTTL("bad-mx.example.com", "MX", 60, "x mail.example.com"),
		endpoint.NewWithTTL("bad-a.example.com", "A", 60, "2001:db8::1"),
		endpoint.NewWithTTL("two.example.com", "CNAME", 60, "a.example.net", "b.example.net"),
		endpoint.NewWithTTL("ns.example.com", "NS", 60, "ns.example.net"),
		endpoint.NewWithTTL("set.example.com", "A", 60, "10.0.0.1").WithSetIdentifier("eu"),
		endpoint.NewWithTTL("example.com", "CNAME", 60, "x.example.net"), // beside the apex MX
	}
	err := p.ApplyChanges(context.Background(), &plan.Changes{Create: append(slices.Clone(good), bad...)})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != len(bad) {
		t.Fatalf("want %d rejected, got %v", len(bad), err)
	}
	for _, r := range ae.Rejected {
		t.Logf("rejected %s %s: %v", r.Endpoint.DNSName, r.Endpoint.RecordType, r.Err)
	}
	if !strings.Contains(ae.Error(), "targets[0]") || !strings.Contains(ae.Error(), "setIdentifier") {
		t.Errorf("reasons do not name the field: %v", ae)
	}
	addr := srv.Addrs()[0]
	for _, c := range []struct {
		name  string
		qtype uint16
		want  string
	}{
		{"_http._tcp.example.com", dns.TypeSRV, "10 5 8080 web.example.com."},
		{"example.com", dns.TypeMX, "10 mail.example.com."},
		{"x.apps.example.com", dns.TypeA, "10.0.0.9"},
		{"5.0.0.10.example.com", dns.TypePTR, "host.example.com."},
	} {
		if got := values(askFrom(t, addr, "udp", "127.0.0.1", c.name, c.qtype)); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%s %s: %q, want %s", c.name, dns.TypeToString[c.qtype], got, c.want)
		}
	}
	eps, _ := p.Records(context.Background())
	if len(eps) != len(good) {
		t.Errorf("Records: %d record sets, want %d", len(eps), len(good))
	}
}

// TestZoneFileRecordsNotListedNorTouched: static records are served, never listed by Records, and a
// record set the zone file holds cannot be taken over (rejected per change).
func TestZoneFileRecordsNotListedNorTouched(t *testing.T) {
	zf := filepath.Join(t.TempDir(), "static.zone")
	if err := os.WriteFile(zf, []byte("$ORIGIN example.com.\nstatic 60 IN A 192.0.2.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := dnsserver.New(dnsserver.Config{Listen: []string{"127.0.0.1:0"}, Zones: []string{"example.com"}, ZoneFiles: []dnsserver.ZoneFile{{Path: zf}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p, _ := New(srv, "default")
	if eps, _ := p.Records(context.Background()); len(eps) != 0 {
		t.Fatalf("zone-file records listed: %v", eps)
	}
	err = p.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{
		endpoint.NewWithTTL("static.example.com", "A", 60, "10.0.0.1"),
		endpoint.NewWithTTL("static.example.com", "TXT", 60, "ours"),
	}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.RecordType != "A" || !strings.Contains(ae.Error(), "zone file") {
		t.Fatalf("want the A rejected as held by the zone file, got %v", err)
	}
	if got := values(askFrom(t, srv.Addrs()[0], "udp", "127.0.0.1", "static.example.com", dns.TypeA)); !slices.Equal(got, []string{"192.0.2.1"}) {
		t.Fatalf("zone-file A: %q", got)
	}
}

// The listing version (provider.ListingVersioner) is known, stays while only Records is called, and
// moves with every ApplyChanges, a partly refused one too.
func TestListingVersionMovesWithEveryWrite(t *testing.T) {
	p, err := New(startServer(t, "example.com"), "default")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v0, known := p.ListingVersion()
	if !known || !p.ListsExactlyWhatItWrote() {
		t.Fatal("the built-in provider's listing version is unknown, or it does not say it lists what it wrote")
	}
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.ListingVersion(); v != v0 {
		t.Fatalf("a listing moved the version %d -> %d", v0, v)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("a.example.com", "A", "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	v1, _ := p.ListingVersion()
	if v1 == v0 {
		t.Fatal("a write did not move the version")
	}
	err = p.ApplyChanges(ctx, &plan.Changes{Create: []*endpoint.Endpoint{endpoint.New("b.example.com", "A", "192.0.2.2"),
		endpoint.New("c.example.com", "A", "192.0.2.3").WithSetIdentifier("eu")}})
	if _, rejected := provider.AsApplyError(err); !rejected {
		t.Fatalf("the set identifier was not refused: %v", err)
	}
	if v2, _ := p.ListingVersion(); v2 == v1 {
		t.Fatal("a partly refused write did not move the version")
	}
}
