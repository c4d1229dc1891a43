package cloudflare

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	cf "github.com/cloudflare/cloudflare-go/v7"
	"github.com/cloudflare/cloudflare-go/v7/custom_hostnames"
	"github.com/cloudflare/cloudflare-go/v7/option"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

func customDump(emu *cloudflareemu.Server) string {
	var out []string
	for _, h := range emu.Dump()[0].CustomHostnames {
		out = append(out, h.Hostname+">"+h.CustomOriginServer)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// addForeignCustomHostname creates a custom hostname through the SDK, as another tool would.
func addForeignCustomHostname(t *testing.T, p *Provider, zoneID, hostname, origin string) {
	t.Helper()
	if _, err := p.client.CustomHostnames.New(testCtx(t), custom_hostnames.CustomHostnameNewParams{ZoneID: cf.F(zoneID), Hostname: cf.F(hostname),
		SSL: cf.F(custom_hostnames.CustomHostnameNewParamsSSL{Method: cf.F(custom_hostnames.DCVMethodTXT), Type: cf.F(custom_hostnames.DomainValidationTypeDv)})},
		option.WithJSONSet("custom_origin_server", origin)); err != nil {
		t.Fatal(err)
	}
}

// Custom hostnames as external-dns v0.23 keeps them (issue 13): the annotation's hostnames are created
// with the A or CNAME record as their custom origin and SSL as the flags say; Records lists them on the
// record, so a second sync plans nothing; a changed list deletes and creates the difference, a deleted
// record takes its custom hostnames along, and a hostname another origin holds is refused on the
// object and left alone.
func TestCustomHostnames(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	ids := seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{CustomHostnames: true, CustomHostnamesMinTLSVersion: "1.2", CustomHostnamesCertificateAuthority: "lets_encrypt"})
	addForeignCustomHostname(t, p, ids["example.com"], "shop.customer.net", "other.example.com")
	desired := []*endpoint.Endpoint{
		ep("app.example.com", "A", 0, "192.0.2.1").WithProviderSpecific("cloudflare/custom-hostname", "b.customer.net,a.customer.net"),
		ep("app.example.com", "AAAA", 0, "2001:db8::1").WithProviderSpecific("cloudflare/custom-hostname", "b.customer.net,a.customer.net"),
		ep("www.example.com", "CNAME", 0, "app.example.com").WithProviderSpecific("external-dns.alpha.kubernetes.io/cloudflare-custom-hostname", "w.customer.net"),
	}
	if err := adjustAndApply(t, p, &plan.Changes{Create: desired}); err != nil {
		t.Fatal(err)
	}
	if got, want := customDump(emu), "a.customer.net>app.example.com b.customer.net>app.example.com shop.customer.net>other.example.com w.customer.net>www.example.com"; got != want {
		t.Fatalf("custom hostnames: %s\nwant %s", got, want)
	}
	ctx := testCtx(t)
	for _, h := range emu.Dump()[0].CustomHostnames {
		if h.Hostname != "a.customer.net" {
			continue
		}
		got, err := p.client.CustomHostnames.Get(ctx, h.ID, custom_hostnames.CustomHostnameGetParams{ZoneID: cf.F(ids["example.com"])})
		if err != nil {
			t.Fatal(err)
		}
		if got.SSL.Method != "http" || got.SSL.Type != "dv" || got.SSL.BundleMethod != "ubiquitous" ||
			got.SSL.CertificateAuthority != "lets_encrypt" || got.SSL.Settings.MinTLSVersion != "1.2" {
			t.Errorf("SSL of a new custom hostname: %+v", got.SSL)
		}
	}

	current, err := p.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	adjusted, _ := p.AdjustEndpoints(ctx, desired)
	res := plan.Calculate(plan.Input{Desired: adjusted, Current: current, Policy: plan.PolicySync, ManagedRecordTypes: recordTypes})
	if res.Changes.HasChanges() {
		t.Fatalf("a second sync changes: create %v update %v delete %v", res.Changes.Create, res.Changes.UpdateNew, res.Changes.Delete)
	}
	byKey := map[string]*endpoint.Endpoint{}
	for _, e := range current {
		byKey[e.DNSName+" "+e.RecordType] = e
	}
	if v, _ := byKey["app.example.com A"].GetProviderSpecific("cloudflare/custom-hostname"); v != "a.customer.net,b.customer.net" {
		t.Errorf("Records lists app.example.com A with custom hostnames %q", v)
	}
	if _, ok := byKey["app.example.com AAAA"].GetProviderSpecific("cloudflare/custom-hostname"); ok {
		t.Errorf("the AAAA record set carries custom hostnames")
	}

	next := adjusted[0].DeepCopy()
	next.SetProviderSpecific("cloudflare/custom-hostname", "a.customer.net,c.customer.net")
	taker := ep("taker.example.com", "A", 0, "192.0.2.9").WithProviderSpecific("cloudflare/custom-hostname", "shop.customer.net")
	emu.ClearCalls()
	err = adjustAndApply(t, p, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{byKey["app.example.com A"]}, UpdateNew: []*endpoint.Endpoint{next},
		Delete: []*endpoint.Endpoint{byKey["www.example.com CNAME"]},
		Create: []*endpoint.Endpoint{taker},
	})
	var ae *provider.ApplyError
	if !errors.As(err, &ae) || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.DNSName != "taker.example.com" ||
		!strings.Contains(ae.Rejected[0].Err.Error(), "custom hostname shop.customer.net already exists with custom origin other.example.com") {
		t.Fatalf("want taker.example.com rejected for another origin's custom hostname, got %v", err)
	}
	if got, want := customDump(emu), "a.customer.net>app.example.com c.customer.net>app.example.com shop.customer.net>other.example.com"; got != want {
		t.Fatalf("after the update and the delete: %s\nwant %s", got, want)
	}
	if n := emu.Counters().Calls[cloudflareemu.OpCustomHostnamesList]; n != 0 {
		t.Errorf("%d custom hostname listings in steady state", n)
	}
}

// The custom hostnames are listed 50 to a page, one request per page and none after the last.
func TestCustomHostnamesPaging(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	ids := seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{CustomHostnames: true, CustomHostnamesMinTLSVersion: "1.0"})
	for i := range 55 {
		addForeignCustomHostname(t, p, ids["example.com"], fmt.Sprintf("c%02d.customer.net", i), "app.example.com")
	}
	if err := adjustAndApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{ep("app.example.com", "A", 0, "192.0.2.1")}}); err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	p.Invalidate() // Records serves a cached zone; a listing is what is measured
	current, err := p.Records(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := emu.Counters().Calls[cloudflareemu.OpCustomHostnamesList]; n != 2 {
		t.Errorf("%d custom hostname listings for 55 hostnames, want 2", n)
	}
	for _, e := range current {
		if v, _ := e.GetProviderSpecific("cloudflare/custom-hostname"); e.RecordType == "A" && len(strings.Split(v, ",")) != 55 {
			t.Errorf("app.example.com lists %d custom hostnames, want 55", len(strings.Split(v, ",")))
		}
	}
}

// Without --cloudflare-custom-hostnames, an object asking for a custom hostname gets a problem naming
// the flag, rather than a record published without it.
func TestCustomHostnameWithoutTheFlagIsRefused(t *testing.T) {
	_, base := emulator(t, cloudflareemu.Options{})
	p := newTestProvider(t, base, Config{})
	adj, _ := p.AdjustEndpoints(testCtx(t), []*endpoint.Endpoint{ep("a.example.com", "A", 0, "192.0.2.1").WithProviderSpecific("cloudflare/custom-hostname", "a.customer.net")})
	if why := p.Capabilities().Refuses(adj[0]); !strings.Contains(why, "needs custom hostnames on (--cloudflare-custom-hostnames") {
		t.Errorf("refusal: %q", why)
	}
}
