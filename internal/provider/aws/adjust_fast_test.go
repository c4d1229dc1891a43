package aws

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestAdjustSkipsOnlyWhatTheRoundTripKeeps: AdjustEndpoints' shortcuts for plain records and plain
// aliases give exactly what the record-set round trip gives (every field, a nil ProviderSpecific
// included), over records they apply to and records near them they must not (a trailing dot, a TXT, a
// negative or unset TTL, a set identifier without a policy, properties of other providers, an empty
// name, no targets, an unsupported type, pins; aliases with upper case, escapes, two dots, a bad or
// repeated evaluate-target-health, a target zone, a weight, CloudFront).
func TestAdjustSkipsOnlyWhatTheRoundTripKeeps(t *testing.T) {
	desired := adjustCases()
	for _, preferCNAME := range []bool{false, true} {
		p := &Provider{cfg: Config{EvaluateTargetHealth: true, PreferCNAME: preferCNAME}}
		for _, zones := range [][]zone{nil, {{id: "Z1", name: "big.test"}}, {{id: "Z1", name: "big.test"}, {id: "Z2", name: "big.test", private: true}}} {
			p.zoneList = zones
			fast := p.adjustEach(desired, true)
			slow := p.adjustEach(desired, false)
			if len(fast) != len(slow) {
				t.Fatalf("preferCNAME=%v zones=%v: %d endpoints with the shortcut, %d without", preferCNAME, zones, len(fast), len(slow))
			}
			for i := range fast {
				if !reflect.DeepEqual(fast[i], slow[i]) {
					t.Errorf("preferCNAME=%v zones=%v: %#v\nwith the shortcut, %#v\nwithout", preferCNAME, zones, fast[i], slow[i])
				}
			}
		}
	}
	skipped, aliases := 0, 0
	for _, e := range desired {
		if roundTripKeeps(e) {
			skipped++
		}
		if _, _, ok := (&Provider{}).plainAlias(e); ok && e.RecordType == "CNAME" && strings.Contains(e.Targets[0], "amazonaws") {
			aliases++
		}
	}
	if skipped < 5 || aliases < 5 {
		t.Errorf("the shortcuts apply to %d plain records and %d aliases, want at least 5 each (the test would not test them)", skipped, aliases)
	}
	// The aliases a CNAME becomes do not share a label map (the caller's records are checked by
	// TestAdjustLeavesTheCallersEndpoints: the output may share their memory, never write it).
	out := (&Provider{}).adjust([]*endpoint.Endpoint{labelled(ep("lb.big.test", "CNAME", 0, elb))})
	out[0].Labels["x"] = "y"
	if len(out) != 2 || out[1].Labels["x"] != "" {
		t.Errorf("the aliases of one CNAME share a label map: %v", out)
	}
}

func labelled(e *endpoint.Endpoint) *endpoint.Endpoint {
	return e.WithLabel(endpoint.ResourceLabelKey, "ingress/default/web")
}

// adjustCases are records AdjustEndpoints' shortcuts apply to and records near them they must not.
func adjustCases() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		labelled(ep("app.big.test", "A", 300, "10.0.0.1")),
		labelled(ep("app.big.test", "A", 0, "10.0.0.1", "10.0.0.2")),
		ep("App.Big.Test.", "AAAA", 60, "2001:db8::1"),
		ep("neg.big.test", "A", -1, "10.0.0.1"),
		ep("c.big.test", "CNAME", 120, "lb.example.net"),
		{DNSName: "c.big.test", RecordType: "CNAME", RecordTTL: 120, Targets: endpoint.Targets{"lb.example.net."}}, // as a source may give it
		{DNSName: "a.big.test", RecordType: "A", Targets: endpoint.Targets{"10.0.0.1", "10.0.0.2."}},
		ep("c.big.test", "CNAME", 120, elb),
		ep("c.big.test", "CNAME", 120, "LB.Example.NET"),
		ep("t.big.test", "TXT", 0, "v=spf1 -all"),
		ep("t.big.test", "TXT", 0, `"heritage=external-dns,external-dns/owner=a"`),
		ep("s.big.test", "SRV", 0, "10 5 443 web.big.test."),
		ep("s.big.test", "SRV", 0, "10 5 443 web.big.test"),
		ep("mx.big.test", "MX", 0, "10 mail.big.test"),
		ep("caa.big.test", "CAA", 0, `0 issue "letsencrypt.org"`),
		ep("n.big.test", "NAPTR", 0, `100 10 "u" "E2U+sip" "!^.*$!sip:info@big.test!" .`),
		ep("ns.big.test", "NS", 0, "ns1.example.net"),
		ep("", "NS", 0, "ns1.example.net"),
		ep(".", "A", 0, "10.0.0.1"),
		ep("none.big.test", "A", 0),
		ep("x.big.test", "SPF", 0, "v=spf1 -all"),
		ep("x.big.test", "HTTPS", 0, "1 . alpn=h2"),
		ep("id.big.test", "A", 0, "10.0.0.1").WithSetIdentifier("lonely"),
		ep("w.big.test", "A", 0, "10.0.0.1").WithSetIdentifier("blue").WithProviderSpecific("aws/weight", "010"),
		ep("foreign.big.test", "A", 0, "10.0.0.1").WithProviderSpecific("coredns/group", "g"),
		ep("foreign.big.test", "A", 0, "10.0.0.1").WithProviderSpecific("alias", "false").WithProviderSpecific("aws/evaluate-target-health", "true"),
		ep("pin.big.test", "A", 0, "10.0.0.1").WithProviderSpecific("aws/hosted-zone-id", "/hostedzone/Z1"),
		ep("a.big.test", "A", 0, "lb.example.net").WithProviderSpecific("alias", "true"),
		ep("bad.big.test", "A", 0, "10.0.0.1").WithSetIdentifier("x").WithProviderSpecific("aws/weight", "heavy"),
		labelled(ep("lb.big.test", "CNAME", 0, elb)),
		ep("lb.big.test", "CNAME", 60, strings.ToUpper(elb)+"."),
		{DNSName: "lb.big.test", RecordType: "CNAME", Targets: endpoint.Targets{elb + ".."}},
		{DNSName: "lb.big.test", RecordType: "CNAME", Targets: endpoint.Targets{elb + ".."}, ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}}},
		{DNSName: "lb.big.test", RecordType: "CNAME", Targets: endpoint.Targets{`k8s\055web.elb.amazonaws.com`}},
		{DNSName: "lb.big.test", RecordType: "CNAME", Targets: endpoint.Targets{`k8s\055web.elb.amazonaws.com`}, ProviderSpecific: endpoint.ProviderSpecific{{Name: "alias", Value: "true"}}},
		{DNSName: "lb.big.test", RecordType: "CNAME", Targets: endpoint.Targets{elb, "other.elb.amazonaws.com"}},
		ep("cdn.big.test", "CNAME", 0, "d111111abcdef8.cloudfront.net").WithProviderSpecific("aws/evaluate-target-health", "true"),
		ep("ga.big.test", "CNAME", 0, "a1234567890abcdef.awsglobalaccelerator.com"),
		ep("lb.big.test", "CNAME", 0, elb).WithProviderSpecific("alias", "A").WithProviderSpecific("aws/evaluate-target-health", "false"),
		ep("lb.big.test", "CNAME", 0, elb).WithProviderSpecific("alias", "AAAA"),
		ep("lb.big.test", "CNAME", 0, elb).WithProviderSpecific("aws/evaluate-target-health", "maybe"),
		ep("lb.big.test", "CNAME", 0, elb).WithProviderSpecific("aws/evaluate-target-health", "false").WithProviderSpecific("aws/evaluate-target-health", "bad"),
		ep("lb.big.test", "CNAME", 0, elb).WithProviderSpecific("aws/target-hosted-zone", "Z0OTHER"),
		ep("lb.big.test", "CNAME", 0, elb).WithSetIdentifier("blue").WithProviderSpecific("aws/weight", "10"),
		ep("lb.big.test", "CNAME", 0, elb).WithProviderSpecific("aws/hosted-zone-id", "Z2"),
		ep("lb.big.test", "CNAME", 0, "svc.big.test").WithProviderSpecific("alias", "true"),
		ep("lb.big.test", "AAAA", 0, "svc.big.test").WithProviderSpecific("alias", "true").WithProviderSpecific("coredns/group", "g"),
		ep("", "CNAME", 0, elb),
	}
}
