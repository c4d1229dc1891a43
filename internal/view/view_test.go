package view

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

type fixedSource struct {
	eps      []*endpoint.Endpoint
	handlers []func()
}

func (f *fixedSource) Endpoints(context.Context) (source.Result, error) {
	return source.Result{Endpoints: f.eps}, nil
}
func (f *fixedSource) AddEventHandler(fn func()) { f.handlers = append(f.handlers, fn) }

func TestFlagsBecomeSpecs(t *testing.T) {
	specs, err := Flags{
		Names:          []string{"internal", "external"},
		Targets:        []string{"external=public"},
		TTL:            []string{"external=900"},
		DomainFilter:   []string{"external=example.com"},
		ExcludeDomains: []string{"external=lan.example.com"},
		CoreDNSPrefix:  []string{"internal=/skydns/", "external=/external/"},
		Subnets:        []string{"internal=192.168.0.0/16,10.0.0.1/8"},
	}.Specs()
	if err != nil {
		t.Fatal(err)
	}
	in, ex := specs[0], specs[1]
	if in.Name != "internal" || in.Targets != TargetsAsReported || in.CoreDNSPrefix != "/skydns/" ||
		len(in.Subnets) != 2 || in.Subnets[1] != netip.MustParsePrefix("10.0.0.0/8") {
		t.Fatalf("internal %+v", in)
	}
	if ex.Targets != TargetsPublic || ex.TTL != 900 || ex.CoreDNSPrefix != "/external/" ||
		!ex.Domains.Match("app.example.com") || ex.Domains.Match("nas.lan.example.com") || ex.Domains.Match("other.org") {
		t.Fatalf("external %+v", ex)
	}
}

func TestFlagErrorsNameTheFlag(t *testing.T) {
	cases := map[string]Flags{
		"--view-ttl=external=abc":        {Names: []string{"external"}, TTL: []string{"external=abc"}},
		"--view-targets=x=public":        {Names: []string{"external"}, Targets: []string{"x=public"}},
		"--view-targets=external=wan":    {Names: []string{"external"}, Targets: []string{"external=wan"}},
		"--view-subnets=external=nope":   {Names: []string{"external"}, Subnets: []string{"external=nope"}},
		"--view-coredns-prefix=external": {Names: []string{"external"}, CoreDNSPrefix: []string{"external=skydns"}},
		"declared twice":                 {Names: []string{"a", "a"}},
		"--view-ttl=900":                 {Names: []string{"external"}, TTL: []string{"900"}},
	}
	for want, f := range cases {
		if _, err := f.Specs(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v, want mention of %q", f, err, want)
		}
	}
}

func TestPublicViewRewritesAddressesOnly(t *testing.T) {
	inner := &fixedSource{eps: []*endpoint.Endpoint{
		endpoint.NewWithTTL("app.example.com", endpoint.RecordTypeA, 60, "192.168.1.50", "192.168.1.51"),
		endpoint.New("app.example.com", endpoint.RecordTypeAAAA, "fd00::5"),
		endpoint.New("www.example.com", endpoint.RecordTypeCNAME, "app.example.com"),
		endpoint.New("a-app.example.com", endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=x"`),
		endpoint.New("nas.lan.example.com", endpoint.RecordTypeA, "192.168.1.9"),
	}}
	specs, err := Flags{Names: []string{"external"}, Targets: []string{"external=public"}, TTL: []string{"external=900"},
		ExcludeDomains: []string{"external=lan.example.com"}}.Specs()
	if err != nil {
		t.Fatal(err)
	}
	addr := &StaticAddress{}
	addr.Set(Address{V4: netip.MustParseAddr("203.0.113.7")})
	s, err := NewSource(inner, specs[0], addr)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.Endpoints(context.Background())
	got := map[string]string{}
	for _, e := range res.Endpoints {
		got[e.DNSName+" "+e.RecordType] = strings.Join(e.Targets, ",")
		if e.RecordTTL != 900 {
			t.Errorf("%s: TTL %d, want 900", e.Key(), e.RecordTTL)
		}
	}
	want := map[string]string{
		"app.example.com A":     "203.0.113.7",                                  // both private targets become the WAN address
		"www.example.com CNAME": "app.example.com",                              // a CNAME names a host: unchanged
		"a-app.example.com TXT": `"heritage=external-dns,external-dns/owner=x"`, // ownership: unchanged
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v (no AAAA without a public IPv6, nothing under lan.example.com)", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if inner.eps[0].Targets[0] != "192.168.1.50" || inner.eps[0].RecordTTL != 60 {
		t.Fatal("the view modified the shared source's endpoints")
	}

	// A new public address is an event for the view.
	fired := 0
	s.AddEventHandler(func() { fired++ })
	addr.Set(Address{V4: netip.MustParseAddr("203.0.113.8")})
	addr.Set(Address{V4: netip.MustParseAddr("203.0.113.8")}) // unchanged: no event
	if fired != 1 {
		t.Fatalf("address change fired %d events, want 1", fired)
	}
	if _, err := NewSource(inner, specs[0], nil); err == nil {
		t.Fatal("targets=public without an address source was accepted")
	}
}
