package rfc2136

import (
	"testing"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// Split horizon: one BIND with two views of example.com, selected by TSIG key. Two provider instances
// run side by side, each with its view's key; each reads and writes only its view.
func TestTwoViewsSelectedByKey(t *testing.T) {
	intKey := testbed.NewTSIGKey(t, "int-key", "hmac-sha256")
	extKey := testbed.NewTSIGKey(t, "ext-key", "hmac-sha512")
	b := testbed.StartBIND(t, testbed.BINDConfig{
		Keys: []testbed.TSIGKey{intKey, extKey},
		Views: []testbed.BINDView{
			{Name: "internal", MatchClients: "!key ext-key; key int-key;", Zones: []testbed.BINDZone{{
				Name: zone, UpdateKey: intKey.Name, TransferKey: intKey.Name, Records: []string{"only-internal IN A 10.9.9.9"}}}},
			{Name: "external", MatchClients: "key ext-key;", Zones: []testbed.BINDZone{{
				Name: zone, UpdateKey: extKey.Name, TransferKey: extKey.Name}}},
		},
	})
	instance := func(k testbed.TSIGKey) *Provider {
		p, err := New(Config{Hosts: []string{b.Addr}, Zones: []string{zone}, TSIGKeyName: k.Name, TSIGSecret: k.Secret, TSIGSecretAlg: k.Algorithm, TSIGAXFR: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	internal, external := instance(intKey), instance(extKey)

	mustApply(t, internal, &plan.Changes{Create: []*endpoint.Endpoint{ep("app.example.com", endpoint.RecordTypeA, 300, "10.0.0.5")}})
	mustApply(t, external, &plan.Changes{Create: []*endpoint.Endpoint{ep("app.example.com", endpoint.RecordTypeA, 300, "203.0.113.7")}})

	if got := recordsByKey(t, internal); len(got) != 2 || got["app.example.com A"] != "10.0.0.5" || got["only-internal.example.com A"] != "10.9.9.9" {
		t.Errorf("internal view: %v", got)
	}
	if got := recordsByKey(t, external); len(got) != 1 || got["app.example.com A"] != "203.0.113.7" {
		t.Errorf("external view: %v", got)
	}
	// What clients of each view are answered.
	if got := answers(t, b.Addr, "app.example.com", dns.TypeA, &intKey); len(got) != 1 || got[0] != "10.0.0.5" {
		t.Errorf("internal answer %v", got)
	}
	if got := answers(t, b.Addr, "app.example.com", dns.TypeA, &extKey); len(got) != 1 || got[0] != "203.0.113.7" {
		t.Errorf("external answer %v", got)
	}

	// A delete in one view leaves the other alone.
	mustApply(t, external, &plan.Changes{Delete: []*endpoint.Endpoint{ep("app.example.com", endpoint.RecordTypeA, 300, "203.0.113.7")}})
	if got := answers(t, b.Addr, "app.example.com", dns.TypeA, &extKey); len(got) != 0 {
		t.Errorf("external answer after delete %v", got)
	}
	if got := answers(t, b.Addr, "app.example.com", dns.TypeA, &intKey); len(got) != 1 {
		t.Errorf("internal answer after the external delete %v", got)
	}
}
