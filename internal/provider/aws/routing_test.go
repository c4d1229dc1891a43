package aws

import (
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// Every routing policy round-trips through Route 53 into the properties the sources set; a change of
// policy kind is sent as DELETE + CREATE; a set-identifier without a policy is rejected by name.
func TestRoutingPolicies(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{})
	hc := "abcdef11-2222-3333-4444-555555555555"
	desired := p.adjust([]*endpoint.Endpoint{
		ep("w.example.com", "A", 60, "10.0.0.1").WithSetIdentifier("blue").WithProviderSpecific("aws/weight", "10"),
		ep("w.example.com", "A", 60, "10.0.0.2").WithSetIdentifier("green").WithProviderSpecific("aws/weight", "90").WithProviderSpecific("aws/health-check-id", hc),
		ep("l.example.com", "A", 60, "10.0.1.1").WithSetIdentifier("eu").WithProviderSpecific("aws/region", "eu-west-1"),
		ep("f.example.com", "A", 60, "10.0.2.1").WithSetIdentifier("one").WithProviderSpecific("aws/failover", "primary").WithProviderSpecific("aws/health-check-id", hc),
		ep("f.example.com", "A", 60, "10.0.2.2").WithSetIdentifier("two").WithProviderSpecific("aws/failover", "SECONDARY"),
		ep("g.example.com", "A", 60, "10.0.3.1").WithSetIdentifier("europe").WithProviderSpecific("aws/geolocation-continent-code", "EU"),
		ep("g.example.com", "A", 60, "10.0.3.2").WithSetIdentifier("ca").WithProviderSpecific("aws/geolocation-country-code", "US").WithProviderSpecific("aws/geolocation-subdivision-code", "CA"),
		ep("m.example.com", "A", 60, "10.0.4.1").WithSetIdentifier("m1").WithProviderSpecific("aws/multi-value-answer", "true"),
	})
	bad := ep("bad.example.com", "A", 60, "10.0.5.1").WithSetIdentifier("lonely")
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: append(desired, bad)})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint != bad || !strings.Contains(err.Error(), `set-identifier "lonely" needs a routing policy annotation`) {
		t.Fatalf("want bad.example.com rejected for its lonely set-identifier, got %v", err)
	}
	p.Invalidate()
	current, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	want, got := describeAll(desired), describeAll(current)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("listed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	stored := dump(srv, "example.com.")["g.example.com. A ca"]
	if stored.GeoLocation == nil || stored.GeoLocation.SubdivisionCode == nil || *stored.GeoLocation.SubdivisionCode != "CA" {
		t.Fatalf("geolocation not stored: %+v", stored)
	}

	// Weighted → latency for the same set: Route 53 cannot UPSERT across kinds.
	var old *endpoint.Endpoint
	for _, c := range current {
		if c.DNSName == "w.example.com" && c.SetIdentifier == "blue" {
			old = c
		}
	}
	nu := p.adjust([]*endpoint.Endpoint{ep("w.example.com", "A", 60, "10.0.0.1").WithSetIdentifier("blue").WithProviderSpecific("aws/region", "us-east-1")})[0]
	// Mixing policies at one name and type is refused; the message reaches the caller.
	err = p.ApplyChanges(ctxT(t), &plan.Changes{UpdateOld: []*endpoint.Endpoint{old}, UpdateNew: []*endpoint.Endpoint{nu}})
	if _, ok := provider.AsApplyError(err); !ok {
		t.Fatalf("a latency set beside a weighted one must be rejected, got %v", err)
	}
	// Alone at its name, the kind changes.
	oldL := current[0]
	for _, c := range current {
		if c.DNSName == "l.example.com" {
			oldL = c
		}
	}
	nuL := p.adjust([]*endpoint.Endpoint{ep("l.example.com", "A", 60, "10.0.1.1").WithSetIdentifier("eu").WithProviderSpecific("aws/weight", "5")})[0]
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{UpdateOld: []*endpoint.Endpoint{oldL}, UpdateNew: []*endpoint.Endpoint{nuL}}); err != nil {
		t.Fatal(err)
	}
	if s := dump(srv, "example.com.")["l.example.com. A eu"]; s.Weight == nil || s.Region != nil {
		t.Fatalf("the latency set did not become weighted: %+v", s)
	}
}
