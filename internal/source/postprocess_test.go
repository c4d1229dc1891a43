package source

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// fixed is a source with fixed endpoints.
type fixed []*endpoint.Endpoint

func (f fixed) Endpoints(context.Context) (Result, error) { return Result{Endpoints: f}, nil }
func (f fixed) AddEventHandler(func())                    {}

func describeAll(eps []*endpoint.Endpoint) string {
	var out []string
	for _, e := range eps {
		out = append(out, fmt.Sprintf("%s %s %v ttl=%d", e.DNSName, e.RecordType, e.Targets, e.RecordTTL))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func TestPostProcess(t *testing.T) {
	res := endpoint.ResourceLabelKey
	src := fixed{
		endpoint.New("app.example.com", "A", "10.1.2.3", "192.0.2.10", "10.9.0.1").WithLabel(res, "ingress/default/app"),
		endpoint.New("v6.example.com", "AAAA", "fd00::1", "2001:db8::1").WithLabel(res, "service/default/v6"),
		endpoint.NewWithTTL("lb.example.com", "CNAME", 30, "lb.example.net").WithLabel(res, "service/default/lb"),
		endpoint.NewWithTTL("private.example.com", "A", 600, "10.9.9.9").WithLabel(res, "service/default/p"),
		endpoint.New("txt.example.com", "TXT", "hello").WithLabel(res, "crd/default/t"),
	}
	for _, c := range []struct {
		name string
		cfg  PostProcessConfig
		want string
	}{
		{"nothing configured", PostProcessConfig{}, describeAll(src)},
		{"target nets", PostProcessConfig{
			TargetNetFilter:   []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")},
			ExcludeTargetNets: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")},
		}, "app.example.com A [10.1.2.3] ttl=0; v6.example.com AAAA [2001:db8::1] ttl=0"},
		{"excluded nets only", PostProcessConfig{ExcludeTargetNets: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}},
			"app.example.com A [10.1.2.3 192.0.2.10] ttl=0; lb.example.com CNAME [lb.example.net] ttl=30; txt.example.com TXT [hello] ttl=0; v6.example.com AAAA [fd00::1 2001:db8::1] ttl=0"},
		{"min TTL", PostProcessConfig{MinTTL: 60},
			"app.example.com A [10.1.2.3 192.0.2.10 10.9.0.1] ttl=60; lb.example.com CNAME [lb.example.net] ttl=30; private.example.com A [10.9.9.9] ttl=600; txt.example.com TXT [hello] ttl=60; v6.example.com AAAA [fd00::1 2001:db8::1] ttl=60"},
		{"forced default targets", PostProcessConfig{DefaultTargets: []string{"203.0.113.7", "2001:db8::7"}, ForceDefaultTargets: true},
			"app.example.com A [203.0.113.7] ttl=0; app.example.com AAAA [2001:db8::7] ttl=0; lb.example.com A [203.0.113.7] ttl=30; lb.example.com AAAA [2001:db8::7] ttl=30; " +
				"private.example.com A [203.0.113.7] ttl=600; private.example.com AAAA [2001:db8::7] ttl=600; txt.example.com TXT [hello] ttl=0; v6.example.com A [203.0.113.7] ttl=0; v6.example.com AAAA [2001:db8::7] ttl=0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := PostProcess(src, c.cfg).Endpoints(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := describeAll(r.Endpoints); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			for _, e := range r.Endpoints {
				if e.Resource() == "" {
					t.Errorf("%s lost its resource label", e.DNSName)
				}
			}
		})
	}
	if got := describeAll(src); !strings.Contains(got, "10.9.0.1") || !strings.Contains(got, "lb.example.net] ttl=30") {
		t.Errorf("the source's endpoints were modified: %s", got)
	}
	if _, ok := PostProcess(src, PostProcessConfig{MinTTL: 1}).(ObjectLookup); !ok {
		t.Error("the wrapper hides ObjectLookup (events and status need it)")
	}
}

// Forced defaults merge one object's records into one per type, but two objects claiming a name stay
// two, so the plan resolves the conflict and reports the loser.
func TestForcedDefaultsKeepConflicts(t *testing.T) {
	src := fixed{
		endpoint.New("app.example.com", "A", "10.0.0.1").WithLabel(endpoint.ResourceLabelKey, "ingress/default/a"),
		endpoint.New("app.example.com", "AAAA", "fd00::1").WithLabel(endpoint.ResourceLabelKey, "ingress/default/a"),
		endpoint.New("app.example.com", "A", "10.0.0.2").WithLabel(endpoint.ResourceLabelKey, "ingress/default/b"),
	}
	r, err := PostProcess(src, PostProcessConfig{DefaultTargets: []string{"203.0.113.7"}, ForceDefaultTargets: true}).Endpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range r.Endpoints {
		got = append(got, e.Resource()+" "+e.RecordType+" "+strings.Join(e.Targets, ","))
	}
	if strings.Join(got, "; ") != "ingress/default/a A 203.0.113.7; ingress/default/b A 203.0.113.7" {
		t.Errorf("got %v", got)
	}
}
