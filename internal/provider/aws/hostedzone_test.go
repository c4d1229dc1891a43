package aws

import (
	"sort"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/route53emu"
)

// placedIn lists, per record name and type, the ids of the zones holding it ("a=ZPRIV,ZPUB").
func placedIn(srv *route53emu.Server) string {
	at := map[string][]string{}
	for _, z := range srv.Dump() {
		for _, rs := range z.Records {
			if rs.Type == "SOA" || rs.Type == "NS" {
				continue
			}
			k := strings.TrimSuffix(rs.Name, ".") + "/" + rs.Type
			at[k] = append(at[k], z.ID)
		}
	}
	var out []string
	for k, ids := range at {
		sort.Strings(ids)
		out = append(out, k+"="+strings.Join(ids, ","))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// aws-hosted-zone-id (issue 11 defect 7, external-dns v0.23): with a public and a private zone of the
// same name, a pinned record goes into the pinned zone only, Records lists it pinned so the plan is
// stable, a pin to a zone the name cannot go into is refused naming the annotation (the others are
// written), and an update that adds, changes or removes the pin moves the record.
func TestHostedZoneIDPinsTheZone(t *testing.T) {
	staticCredentials(t)
	srv, url := emulator(t, route53emu.Options{})
	seed(t, srv,
		route53emu.SeedZone{ID: "ZPUB", Name: "example.com"},
		route53emu.SeedZone{ID: "ZPRIV", Name: "example.com", Private: true, VPCID: "vpc-1", VPCRegion: "us-east-1"},
		route53emu.SeedZone{ID: "ZOTHER", Name: "other.org"},
	)
	p := newProvider(t, url, Config{})
	if _, err := p.Records(ctxT(t)); err != nil { // the zone list, as the controller's Records call before adjusting
		t.Fatal(err)
	}
	pin := func(e *endpoint.Endpoint, id string) *endpoint.Endpoint {
		return e.WithProviderSpecific("aws/hosted-zone-id", id)
	}
	desired := []*endpoint.Endpoint{
		pin(ep("a.example.com", "A", 60, "10.0.0.1"), "ZPRIV"),
		ep("b.example.com", "A", 60, "10.0.0.2"),
		pin(ep("c.example.com", "A", 60, "10.0.0.3"), "/hostedzone/ZPUB"),
		pin(ep("x.other.org", "A", 60, "10.0.0.5"), "ZOTHER"), // the only zone anyway: the pin changes nothing
	}
	adjusted := p.adjust(desired)
	if got := describeAll(adjusted); !strings.Contains(strings.Join(got, "\n"), "c.example.com A  60 10.0.0.3 aws/hosted-zone-id=ZPUB") ||
		strings.Contains(strings.Join(got, "\n"), "x.other.org A  60 10.0.0.5 aws/") {
		t.Fatalf("adjusted: %v", got)
	}
	badZone := pin(ep("d.example.com", "A", 60, "10.0.0.4"), "ZNOPE")
	wrongName := pin(ep("e.example.com", "A", 60, "10.0.0.6"), "ZOTHER")
	err := p.ApplyChanges(ctxT(t), &plan.Changes{Create: append(adjusted, p.adjust([]*endpoint.Endpoint{badZone, wrongName})...)})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 2 ||
		!strings.Contains(err.Error(), `aws-hosted-zone-id "ZNOPE" is not a hosted zone this provider manages`) ||
		!strings.Contains(err.Error(), `aws-hosted-zone-id "ZOTHER": e.example.com cannot go into hosted zone other.org (ZOTHER)`) {
		t.Fatalf("want d and e refused naming aws-hosted-zone-id, got %v", err)
	}
	if got, want := placedIn(srv), "a.example.com/A=ZPRIV b.example.com/A=ZPRIV,ZPUB c.example.com/A=ZPUB x.other.org/A=ZOTHER"; got != want {
		t.Fatalf("placed %s\nwant   %s", got, want)
	}
	p.Invalidate()
	current, err := p.Records(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if want, got := describeAll(adjusted), describeAll(current); strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("listed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res := plan.Calculate(plan.Input{Desired: p.adjust(desired), Current: current, Policy: plan.PolicySync}); res.Changes.HasChanges() {
		t.Fatalf("a second plan changes %v", res.Changes)
	}

	// Moves: a loses its pin (into both zones), b gets one (out of the public zone), c moves to the
	// private zone.
	byName := map[string]*endpoint.Endpoint{}
	for _, e := range current {
		byName[e.DNSName] = e
	}
	nu := p.adjust([]*endpoint.Endpoint{
		ep("a.example.com", "A", 60, "10.0.0.1"),
		pin(ep("b.example.com", "A", 60, "10.0.0.2"), "ZPRIV"),
		pin(ep("c.example.com", "A", 60, "10.0.0.3"), "ZPRIV"),
	})
	res := plan.Calculate(plan.Input{Desired: append(nu, byName["x.other.org"]), Current: current, Policy: plan.PolicySync})
	if len(res.Changes.UpdateNew) != 3 {
		t.Fatalf("want 3 updates, got %v", res.Changes)
	}
	if err := p.ApplyChanges(ctxT(t), res.Changes); err != nil {
		t.Fatal(err)
	}
	if got, want := placedIn(srv), "a.example.com/A=ZPRIV,ZPUB b.example.com/A=ZPRIV c.example.com/A=ZPRIV x.other.org/A=ZOTHER"; got != want {
		t.Fatalf("after the moves %s\nwant              %s", got, want)
	}
	p.Invalidate()
	if current, err = p.Records(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if res := plan.Calculate(plan.Input{Desired: append(nu, byName["x.other.org"]), Current: current, Policy: plan.PolicySync}); res.Changes.HasChanges() {
		t.Fatalf("a plan after the moves changes %v", res.Changes)
	}
	// Deleting the pinned b deletes it from the private zone only; nothing else moves.
	for _, e := range current {
		if e.DNSName == "b.example.com" {
			if err := p.ApplyChanges(ctxT(t), &plan.Changes{Delete: []*endpoint.Endpoint{e}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got, want := placedIn(srv), "a.example.com/A=ZPRIV,ZPUB c.example.com/A=ZPRIV x.other.org/A=ZOTHER"; got != want {
		t.Fatalf("after the delete %s\nwant             %s", got, want)
	}
}
