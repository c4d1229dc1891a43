package cloudflare

import (
	"strconv"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Proxying, comments and tags as external-dns writes them: --cloudflare-proxied proxies A and CNAME
// (TTL automatic) but not TXT; the annotation overrides it; --cloudflare-record-comment is the
// default comment; tags are sorted. A second sync from what Records lists writes nothing.
func TestProxiedCommentsAndTags(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{Proxied: true, Comment: "managed by zonekeeper"})
	desired := []*endpoint.Endpoint{
		ep("web.example.com", "A", 300, "192.0.2.1", "192.0.2.2"),
		ep("app.example.com", "CNAME", 0, "lb.example.net").WithProviderSpecific("cloudflare/tags", " team:web ,env:prod"),
		ep("direct.example.com", "A", 120, "192.0.2.3").WithProviderSpecific("cloudflare/proxied", "false").
			WithProviderSpecific("cloudflare/record-comment", "own comment"),
		ep("a-web.example.com", "TXT", 0, `"heritage=external-dns,external-dns/owner=x"`),
		// external-dns before v0.23 named the property after the full annotation key.
		ep("old.example.com", "A", 300, "192.0.2.4").WithProviderSpecific("external-dns.alpha.kubernetes.io/cloudflare-proxied", "false").
			WithProviderSpecific("aws/weight", "10"),
	}
	if err := adjustAndApply(t, p, &plan.Changes{Create: desired}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range dumpZone(emu, "example.com") {
		got[r.Name+" "+r.Content] = strings.Join([]string{r.Type, itoa(r.TTL), boolStr(r.Proxied), r.Comment, strings.Join(r.Tags, ",")}, "|")
	}
	want := map[string]string{
		"web.example.com 192.0.2.1":                                      "A|1|true|managed by zonekeeper|",
		"web.example.com 192.0.2.2":                                      "A|1|true|managed by zonekeeper|",
		"app.example.com lb.example.net":                                 "CNAME|1|true|managed by zonekeeper|env:prod,team:web",
		"direct.example.com 192.0.2.3":                                   "A|120|false|own comment|",
		`a-web.example.com "heritage=external-dns,external-dns/owner=x"`: "TXT|1|false|managed by zonekeeper|",
		"old.example.com 192.0.2.4":                                      "A|300|false|managed by zonekeeper|",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("records: %v", got)
	}

	// Second sync: Records against the adjusted desired endpoints plans nothing.
	ctx := testCtx(t)
	current, err := p.Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	adjusted, _ := p.AdjustEndpoints(ctx, desired)
	res := plan.Calculate(plan.Input{Desired: adjusted, Current: current, Policy: plan.PolicySync, ManagedRecordTypes: recordTypes})
	if res.Changes.HasChanges() {
		t.Errorf("a second sync changes: create %v update %v delete %v", res.Changes.Create, res.Changes.UpdateNew, res.Changes.Delete)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// Proxying asked for by the object on a type Cloudflare cannot proxy is refused by the capabilities
// (a problem on the object), while the flag's default on such a type is not; a bad value is a
// rejected change naming the annotation; so is a comment longer than a free zone allows, which a paid
// zone takes.
func TestPropertyRefusals(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"}, cloudflareemu.SeedZone{Name: "paid.example.org", Plan: "pro"})
	p := newTestProvider(t, base, Config{Proxied: true})
	ctx := testCtx(t)
	caps := p.Capabilities()
	adj, _ := p.AdjustEndpoints(ctx, []*endpoint.Endpoint{
		ep("txt.example.com", "TXT", 0, "v").WithProviderSpecific("cloudflare/proxied", "true"),
		ep("mx.example.com", "MX", 0, "10 mail.example.com"),
		ep("eu.example.com", "A", 0, "192.0.2.1").WithProviderSpecific("cloudflare-region-key", "eu"),
	})
	if why := caps.Refuses(adj[0]); !strings.Contains(why, "A, AAAA and CNAME records only") {
		t.Errorf("proxied TXT asked for by the object: %q", why)
	}
	if why := caps.Refuses(adj[1]); why != "" {
		t.Errorf("MX under --cloudflare-proxied is refused: %q", why)
	}
	if why := caps.Refuses(adj[2]); !strings.Contains(why, "Regional Services") {
		t.Errorf("region key: %q", why)
	}

	long := strings.Repeat("c", 150)
	err := adjustAndApply(t, p, &plan.Changes{Create: []*endpoint.Endpoint{
		ep("bad.example.com", "A", 0, "192.0.2.1").WithProviderSpecific("cloudflare/proxied", "maybe"),
		ep("long.example.com", "A", 0, "192.0.2.2").WithProviderSpecific("cloudflare/record-comment", long),
		ep("long.paid.example.org", "A", 0, "192.0.2.3").WithProviderSpecific("cloudflare/record-comment", long),
		ep("mx.example.com", "MX", 0, "mail.example.com"),
		ep("ok.example.com", "MX", 300, "10 mail.example.com"),
	}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 3 {
		t.Fatalf("want 3 rejections, got %v", err)
	}
	for i, want := range []string{`cloudflare-proxied "maybe"`, "cloudflare-record-comment is 150 characters; the plan of zone example.com allows 100", `MX target "mail.example.com"`} {
		if !strings.Contains(ae.Rejected[i].Err.Error(), want) {
			t.Errorf("rejection %d: %v, want %q", i, ae.Rejected[i].Err, want)
		}
	}
	if n := len(dumpZone(emu, "paid.example.org")); n != 1 {
		t.Errorf("the paid zone holds %d records, want the long comment's", n)
	}
	recs := dumpZone(emu, "example.com")
	if len(recs) != 1 || recs[0].Type != "MX" || recs[0].Content != "mail.example.com" || recs[0].Priority == nil || *recs[0].Priority != 10 {
		t.Errorf("example.com: %+v", recs)
	}
}
