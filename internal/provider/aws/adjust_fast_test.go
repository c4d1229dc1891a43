package aws

import (
	"reflect"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// TestAdjustSkipsOnlyWhatTheRoundTripKeeps: AdjustEndpoints' shortcut for plain records gives
// exactly what the record-set round trip gives (every field, a nil ProviderSpecific included), over
// records it applies to and records near them it must not (a trailing dot, a TXT, a negative or
// unset TTL, a set identifier without a policy, properties of other providers, an empty name, no
// targets, an unsupported type, pins, aliases).
func TestAdjustSkipsOnlyWhatTheRoundTripKeeps(t *testing.T) {
	labelled := func(e *endpoint.Endpoint) *endpoint.Endpoint {
		return e.WithLabel(endpoint.ResourceLabelKey, "ingress/default/web")
	}
	desired := []*endpoint.Endpoint{
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
	}
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
	skipped := 0
	for _, e := range desired {
		if roundTripKeeps(e) {
			skipped++
		}
	}
	if skipped < 5 {
		t.Errorf("the shortcut applies to %d of the records, want at least 5 (the test would not test it)", skipped)
	}
	// Nothing shares memory with the caller's records.
	out := (&Provider{}).adjust(desired[:1])
	out[0].Targets[0], out[0].Labels["x"] = "changed", "y"
	if desired[0].Targets[0] != "10.0.0.1" || desired[0].Labels["x"] != "" {
		t.Errorf("AdjustEndpoints' output shares memory with its input: %v", desired[0])
	}
}
