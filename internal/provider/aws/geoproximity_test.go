package aws

import (
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// Geoproximity routing (issue 11 defect 7): the aws-geoproximity-* properties become a
// GeoProximityLocation with the bias always sent (0 when left out, filled in by AdjustEndpoints so the
// plan never sees a difference), Records reads them back in the same form, and bad values are refused
// one record at a time with a message naming the annotation while the good records are written.
func TestGeoProximityRoutingRoundTrip(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv, route53emu.SeedZone{Name: "example.com"})
	p := newProvider(t, url, Config{})
	gp := func(id string, kv ...string) *endpoint.Endpoint {
		e := ep("gp.example.com", "A", 60, "10.1.0."+itoa(int64(len(id)))).WithSetIdentifier(id)
		for i := 0; i+1 < len(kv); i += 2 {
			e.WithProviderSpecific("aws/geoproximity-"+kv[i], kv[i+1])
		}
		return e
	}
	desired := p.adjust([]*endpoint.Endpoint{
		gp("r", "region", "us-east-1"),
		gp("lz", "local-zone-group", "us-east-1-bue-1", "bias", "-20"),
		gp("coord", "coordinates", "49.22,-74.01", "bias", "+10"),
	})
	for _, e := range desired {
		if v, ok := e.GetProviderSpecific("aws/geoproximity-bias"); !ok || v == "" {
			t.Fatalf("AdjustEndpoints left %s without a bias: %v", e.SetIdentifier, e.ProviderSpecific)
		}
	}
	bad := []struct {
		e    *endpoint.Endpoint
		want string
	}{
		{gp("b100", "region", "us-east-1", "bias", "100"), `aws-geoproximity-bias "100" is not a whole number from -99 to 99`},
		{gp("babc", "region", "us-east-1", "bias", "abc"), `aws-geoproximity-bias "abc"`},
		{gp("lat", "coordinates", "91,0"), `aws-geoproximity-coordinates "91,0": latitude "91"`},
		{gp("dec", "coordinates", "1.234,5"), `aws-geoproximity-coordinates "1.234,5": latitude`},
		{gp("one", "coordinates", "10"), `aws-geoproximity-coordinates "10": not a latitude and a longitude`},
		{gp("lon", "coordinates", "10,181"), `longitude "181"`},
		{gp("two", "region", "us-east-1", "coordinates", "1,2"), "aws-geoproximity-region, aws-geoproximity-coordinates exclude each other"},
		{gp("bias-only", "bias", "5"), `aws-geoproximity-bias "5" needs aws-geoproximity-region`},
		{ep("noid.example.com", "A", 60, "10.1.1.1").WithProviderSpecific("aws/geoproximity-region", "eu-west-1"), "aws-geoproximity-* needs a set-identifier"},
		{gp("mixed", "region", "eu-west-1").WithProviderSpecific("aws/weight", "1"), "routing policies aws-weight, aws-geoproximity-* exclude each other"},
	}
	create := append([]*endpoint.Endpoint{}, desired...)
	for _, b := range bad {
		create = append(create, p.adjust([]*endpoint.Endpoint{b.e})...)
	}
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: create})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != len(bad) {
		t.Fatalf("want %d rejections, got %v", len(bad), err)
	}
	for _, b := range bad {
		found := false
		for _, r := range ae.Rejected {
			if r.Endpoint.SetIdentifier == b.e.SetIdentifier && r.Endpoint.DNSName == b.e.DNSName && strings.Contains(r.Err.Error(), b.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s %s: no rejection containing %q in %v", b.e.DNSName, b.e.SetIdentifier, b.want, err)
		}
	}
	stored := dump(srv, "example.com.")
	if len(stored) != 3 {
		t.Fatalf("want the 3 good sets stored, got %v", stored)
	}
	r := stored["gp.example.com. A r"].GeoProximityLocation
	if r == nil || r.AWSRegion == nil || *r.AWSRegion != "us-east-1" || r.Bias == nil || *r.Bias != "0" || r.Coordinates != nil {
		t.Fatalf("region set stored as %+v", r)
	}
	c := stored["gp.example.com. A coord"].GeoProximityLocation
	if c == nil || c.Coordinates == nil || c.Coordinates.Latitude != "49.22" || c.Coordinates.Longitude != "-74.01" || *c.Bias != "10" {
		t.Fatalf("coordinates set stored as %+v", c)
	}
	p.Invalidate()
	current, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if want, got := describeAll(desired), describeAll(current); strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("listed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// No perpetual difference: the adjusted desired records equal what Records lists.
	res := plan.Calculate(plan.Input{Desired: p.adjust([]*endpoint.Endpoint{
		gp("r", "region", "us-east-1"), gp("lz", "local-zone-group", "us-east-1-bue-1", "bias", "-20"), gp("coord", "coordinates", "49.22,-74.01", "bias", "+10"),
	}), Current: current, Policy: plan.PolicySync})
	if res.Changes.HasChanges() {
		t.Fatalf("a second plan changes %v", res.Changes)
	}

	// A new location for a set is an UPSERT; weighted → geoproximity is DELETE + CREATE.
	var oldR *endpoint.Endpoint
	for _, e := range current {
		if e.SetIdentifier == "r" {
			oldR = e
		}
	}
	nuR := p.adjust([]*endpoint.Endpoint{gp("r", "coordinates", "-33.86,151.2")})[0]
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{UpdateOld: []*endpoint.Endpoint{oldR}, UpdateNew: []*endpoint.Endpoint{nuR}}); err != nil {
		t.Fatal(err)
	}
	if g := dump(srv, "example.com.")["gp.example.com. A r"].GeoProximityLocation; g == nil || g.AWSRegion != nil || g.Coordinates == nil || g.Coordinates.Latitude != "-33.86" {
		t.Fatalf("the region set did not move to coordinates: %+v", g)
	}
	w := p.adjust([]*endpoint.Endpoint{ep("w.example.com", "A", 60, "10.2.0.1").WithSetIdentifier("x").WithProviderSpecific("aws/weight", "5")})
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: w}); err != nil {
		t.Fatal(err)
	}
	nuW := p.adjust([]*endpoint.Endpoint{ep("w.example.com", "A", 60, "10.2.0.1").WithSetIdentifier("x").WithProviderSpecific("aws/geoproximity-region", "eu-west-1")})
	if err := p.ApplyChanges(ctxT(t), &plan.Changes{UpdateOld: w, UpdateNew: nuW}); err != nil {
		t.Fatal(err)
	}
	if s := dump(srv, "example.com.")["w.example.com. A x"]; s.Weight != nil || s.GeoProximityLocation == nil {
		t.Fatalf("the weighted set did not become geoproximity: %+v", s)
	}
}
