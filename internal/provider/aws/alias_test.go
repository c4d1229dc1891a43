package aws

import (
	"sort"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

const elb = "k8s-default-web-0123456789.us-east-1.elb.amazonaws.com"

func describeAll(eps []*endpoint.Endpoint) []string {
	var out []string
	for _, e := range eps {
		ps := make([]string, 0, len(e.ProviderSpecific))
		for _, p := range e.ProviderSpecific {
			ps = append(ps, p.Name+"="+p.Value)
		}
		sort.Strings(ps)
		t := append([]string(nil), e.Targets...)
		sort.Strings(t)
		out = append(out, strings.Join([]string{e.DNSName, e.RecordType, e.SetIdentifier, itoa(int64(e.RecordTTL)), strings.Join(t, ","), strings.Join(ps, ",")}, " "))
	}
	sort.Strings(out)
	return out
}

func TestAdjustEndpoints(t *testing.T) {
	cases := []struct {
		name string
		in   *endpoint.Endpoint
		cfg  func(*Config)
		want []string
	}{
		{"ELB CNAME becomes A and AAAA aliases",
			ep("www.example.com", "CNAME", 0, elb+"."),
			nil,
			[]string{
				"www.example.com A  300 " + elb + " alias=true,aws/evaluate-target-health=true",
				"www.example.com AAAA  300 " + elb + " alias=true,aws/evaluate-target-health=true",
			}},
		{"NLB, one family, target health off",
			ep("n.example.com", "CNAME", 60, "net-abc.elb.eu-west-1.amazonaws.com").
				WithProviderSpecific("alias", "A").WithProviderSpecific("aws/evaluate-target-health", "false"),
			nil,
			[]string{"n.example.com A  300 net-abc.elb.eu-west-1.amazonaws.com alias=true,aws/evaluate-target-health=false"}},
		{"CloudFront never evaluates target health",
			ep("cdn.example.com", "CNAME", 0, "d111111abcdef8.cloudfront.net"),
			nil,
			[]string{
				"cdn.example.com A  300 d111111abcdef8.cloudfront.net alias=true,aws/evaluate-target-health=false",
				"cdn.example.com AAAA  300 d111111abcdef8.cloudfront.net alias=true,aws/evaluate-target-health=false",
			}},
		{"--aws-prefer-cname keeps the CNAME, foreign properties dropped",
			ep("www.example.com", "CNAME", 0, elb).WithProviderSpecific("coredns/group", "g"),
			func(c *Config) { c.PreferCNAME = true },
			[]string{"www.example.com CNAME  0 " + elb + " "}},
		{"alias=false keeps the CNAME",
			ep("www.example.com", "CNAME", 0, elb).WithProviderSpecific("alias", "false"),
			nil,
			[]string{"www.example.com CNAME  0 " + elb + " "}},
		{"other CNAMEs untouched",
			ep("www.example.com", "CNAME", 120, "lb.example.net"),
			nil,
			[]string{"www.example.com CNAME  120 lb.example.net "}},
		{"weighted, stored form of the weight",
			ep("w.example.com", "A", 0, "10.0.0.1").WithSetIdentifier("blue").WithProviderSpecific("aws/weight", "010"),
			nil,
			[]string{"w.example.com A blue 0 10.0.0.1 aws/weight=10"}},
		{"multi-value answer keeps no value",
			ep("m.example.com", "A", 0, "10.0.0.1").WithSetIdentifier("m1").WithProviderSpecific("aws/multi-value-answer", "true"),
			nil,
			[]string{"m.example.com A m1 0 10.0.0.1 aws/multi-value-answer="}},
		{"quoted and unquoted TXT read the same",
			ep("t.example.com", "TXT", 0, `"v=spf1 -all"`),
			nil,
			[]string{"t.example.com TXT  0 v=spf1 -all "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := &Provider{cfg: Config{EvaluateTargetHealth: true}}
			if c.cfg != nil {
				c.cfg(&q.cfg)
			}
			got := describeAll(q.adjust([]*endpoint.Endpoint{c.in}))
			sort.Strings(c.want)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// Adjusted endpoints, once written, are listed exactly as adjusted (no churn); when the load balancer
// is recreated under a new hostname, one update moves both aliases.
func TestAliasRoundTripAndFollow(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{EvaluateTargetHealth: true})
	desired := p.adjust([]*endpoint.Endpoint{
		ep("www.example.com", "CNAME", 0, elb),
		ep("ga.example.com", "CNAME", 0, "a1234567890abcdef.awsglobalaccelerator.com"),
		ep("w.example.com", "A", 0, "10.0.0.1").WithSetIdentifier("blue").WithProviderSpecific("aws/weight", "7"),
		ep("t.example.com", "TXT", 0, `"v=spf1 -all"`, "plain"),
	})
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: desired}); err != nil {
		t.Fatal(err)
	}
	p.Invalidate()
	current, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range describeAll(desired) {
		found := false
		for _, c := range describeAll(current) {
			// An unset desired TTL is read back as the default.
			if c == d || c == strings.Replace(d, " 0 ", " 300 ", 1) {
				found = true
			}
		}
		if !found {
			t.Errorf("desired %q is not listed as such; Records:\n%s", d, strings.Join(describeAll(current), "\n"))
		}
	}
	stored := dump(srv, "example.com.")["www.example.com. AAAA "]
	if stored.AliasTarget == nil || stored.AliasTarget.HostedZoneID != "Z35SXDOTRQ7X7K" {
		t.Fatalf("AAAA alias not stored with the ELB's zone: %+v", stored)
	}

	// The load balancer is recreated with a new hostname.
	newELB := "k8s-default-web-9999999999.us-east-1.elb.amazonaws.com"
	next := p.adjust([]*endpoint.Endpoint{ep("www.example.com", "CNAME", 0, newELB)})
	var old []*endpoint.Endpoint
	for _, c := range current {
		if c.DNSName == "www.example.com" {
			old = append(old, c)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].RecordType < old[j].RecordType })
	sort.Slice(next, func(i, j int) bool { return next[i].RecordType < next[j].RecordType })
	srv.ClearCalls()
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{UpdateOld: old, UpdateNew: next}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Counters().Calls["ChangeResourceRecordSets"]; n != 1 {
		t.Fatalf("the move took %d calls, want 1", n)
	}
	for _, typ := range []string{"A", "AAAA"} {
		if at := dump(srv, "example.com.")["www.example.com. "+typ+" "].AliasTarget; at == nil || at.DNSName != newELB+"." {
			t.Fatalf("%s alias does not follow the new load balancer: %+v", typ, at)
		}
	}
}
