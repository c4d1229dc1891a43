package cloudflare

import (
	"sort"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

func regionalDump(emu *cloudflareemu.Server) string {
	var out []string
	for _, h := range emu.Dump()[0].RegionalHostnames {
		out = append(out, h.Hostname+"="+h.RegionKey)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// Regional Services as external-dns keeps them: --cloudflare-region-key is the default key of A, AAAA
// and CNAME names, the annotation overrides it ("" for none), other types have none; Records lists
// the keys, so a second sync plans nothing; a changed key is edited and a deleted name loses its
// regional hostname.
func TestRegionalHostnames(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{RegionKey: "eu"})
	desired := []*endpoint.Endpoint{
		ep("web.example.com", "A", 0, "192.0.2.1"),
		ep("web.example.com", "AAAA", 0, "2001:db8::1"),
		ep("us.example.com", "CNAME", 0, "lb.example.net").WithProviderSpecific("cloudflare/region-key", "us"),
		ep("none.example.com", "A", 0, "192.0.2.2").WithProviderSpecific("external-dns.alpha.kubernetes.io/cloudflare-region-key", ""),
		ep("txt.example.com", "TXT", 0, "v"),
	}
	if err := adjustAndApply(t, p, &plan.Changes{Create: desired}); err != nil {
		t.Fatal(err)
	}
	if got := regionalDump(emu); got != "us.example.com=us web.example.com=eu" {
		t.Fatalf("regional hostnames: %s", got)
	}
	ctx := testCtx(t)
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
	next := adjusted[2].DeepCopy()
	next.SetProviderSpecific("cloudflare/region-key", "ca")
	emu.ClearCalls()
	if err := p.ApplyChanges(ctx, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{byKey["us.example.com CNAME"]}, UpdateNew: []*endpoint.Endpoint{next},
		Delete: []*endpoint.Endpoint{byKey["web.example.com A"], byKey["web.example.com AAAA"]},
	}); err != nil {
		t.Fatal(err)
	}
	if got := regionalDump(emu); got != "us.example.com=ca" {
		t.Fatalf("after the update and the delete: %s", got)
	}
	if n := emu.Counters().Calls[cloudflareemu.OpRegionalHostnamesList]; n != 0 {
		t.Errorf("%d regional hostname listings in steady state", n)
	}
}

// Without Regional Services, a region key asked for by an object is refused (a problem on it), not
// dropped.
func TestRegionKeyWithoutRegionalServicesIsRefused(t *testing.T) {
	_, base := emulator(t, cloudflareemu.Options{})
	p := newTestProvider(t, base, Config{})
	adj, _ := p.AdjustEndpoints(testCtx(t), []*endpoint.Endpoint{ep("a.example.com", "A", 0, "192.0.2.1").WithProviderSpecific("cloudflare/region-key", "eu")})
	if why := p.Capabilities().Refuses(adj[0]); !strings.Contains(why, "needs Regional Services on") {
		t.Errorf("refusal: %q", why)
	}
	on := newTestProvider(t, base, Config{RegionalServices: true})
	adj, _ = on.AdjustEndpoints(testCtx(t), []*endpoint.Endpoint{ep("a.example.com", "TXT", 0, "v").WithProviderSpecific("cloudflare/region-key", "eu")})
	if why := on.Capabilities().Refuses(adj[0]); !strings.Contains(why, "A, AAAA and CNAME records only") {
		t.Errorf("TXT with a region key: %q", why)
	}
}
