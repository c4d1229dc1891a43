package cloudflare

import (
	"strings"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// TestUpdatingAProxiedRecordAfterAListingLeavesItsTXTAlone: an ownership TXT carries its record's
// properties (as external-dns writes it), but Cloudflare proxies no TXT and keeps no regional
// hostname for one, so the TXT of a proxied record, or of a record with a region key, lists with
// cloudflare/proxied=false and without cloudflare/region-key. Once the registry's cache comes from a
// listing, updating such a record's target must not rewrite its TXT with the same value, while a
// change Cloudflare keeps on a TXT (the record comment) still rewrites it.
func TestUpdatingAProxiedRecordAfterAListingLeavesItsTXTAlone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		props [][2]string // properties of the records besides the comment
	}{
		{"proxied", Config{}, [][2]string{{propProxied, "true"}}},
		{"not proxied", Config{}, [][2]string{{propProxied, "false"}}},
		{"proxied by default", Config{Proxied: true}, nil},
		{"region key", Config{RegionKey: "eu"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			emu, base := emulator(t, cloudflareemu.Options{})
			seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
			rec := &providertest.BatchRecorder{Wrapped: provider.Wrapped{Provider: newTestProvider(t, base, tc.cfg)}}
			reg, err := txt.New(rec, txt.Config{OwnerID: "x", CacheInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			ctx := testCtx(t)
			const name = "web.example.com"
			record := func(target, comment string) []*endpoint.Endpoint {
				e := ep(name, "A", 0, target)
				for _, p := range tc.props {
					e.SetProviderSpecific(p[0], p[1])
				}
				e.SetProviderSpecific(propComment, comment)
				out, err := reg.AdjustEndpoints(ctx, []*endpoint.Endpoint{e})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			// listed returns the registry's record, listed afresh when relist, else from its cache.
			listed := func(relist bool) []*endpoint.Endpoint {
				if relist {
					reg.Invalidate()
				}
				eps, err := reg.Records(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range eps {
					if e.DNSName == name && e.RecordType == endpoint.RecordTypeA {
						if e.Labels[endpoint.OwnerLabelKey] != "x" {
							t.Fatalf("%s not listed as ours: %v", name, e)
						}
						return []*endpoint.Endpoint{e}
					}
				}
				t.Fatalf("%s not listed: %v", name, eps)
				return nil
			}
			txtComment := func() string {
				for _, r := range dumpZone(emu, "example.com") {
					if r.Type == "TXT" && r.Name == "a-"+name {
						if r.Proxied {
							t.Errorf("the TXT %s is stored proxied", r.Name)
						}
						return r.Comment
					}
				}
				t.Fatalf("no TXT for %s: %+v", name, dumpZone(emu, "example.com"))
				return ""
			}

			if err := reg.ApplyChanges(ctx, &plan.Changes{Create: record("192.0.2.1", "c1")}); err != nil {
				t.Fatal(err)
			}
			if got := providertest.TXTChanges(rec.Last(t)); len(got) != 1 {
				t.Fatalf("creating the record sent TXT changes %q, want one create", got)
			}

			// The target changes, nothing the TXT holds does: only the record is written.
			if err := reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: listed(true), UpdateNew: record("192.0.2.2", "c1")}); err != nil {
				t.Fatal(err)
			}
			if got := providertest.TXTChanges(rec.Last(t)); len(got) != 0 {
				t.Errorf("after a listing, updating the target also sent TXT changes %q, want none", got)
			}

			// The comment, which Cloudflare keeps on a TXT too, changes: the TXT follows, whether the
			// cache comes from a listing or from the registry's own write.
			for _, step := range []struct {
				relist  bool
				comment string
			}{{true, "c2"}, {false, "c3"}} {
				if err := reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: listed(step.relist), UpdateNew: record("192.0.2.2", step.comment)}); err != nil {
					t.Fatal(err)
				}
				if got := providertest.TXTChanges(rec.Last(t)); len(got) != 1 {
					t.Errorf("relisted %v: changing the comment to %s sent TXT changes %q, want one update", step.relist, step.comment, got)
				}
				if got := txtComment(); got != step.comment {
					t.Errorf("relisted %v: the TXT's comment is %q, want %q", step.relist, got, step.comment)
				}
			}
		})
	}
}

// TestOnlyOwnershipTXTsLoseProxiedAndRegionKey: AdjustEndpoints puts the registry's ownership TXT (one
// labelled with the record it guards) in its listed form, unproxied and without a region key, and
// keeps what else Cloudflare keeps on a TXT; a TXT an object declares keeps both, so Capabilities
// still refuses them as a problem on the object.
func TestOnlyOwnershipTXTsLoseProxiedAndRegionKey(t *testing.T) {
	_, base := emulator(t, cloudflareemu.Options{})
	p := newTestProvider(t, base, Config{RegionKey: "eu"})
	caps := p.Capabilities()
	declared := func(prop, value string) *endpoint.Endpoint {
		return ep("txt.example.com", "TXT", 0, "v").WithProviderSpecific(prop, value)
	}
	ownership := ep("a-web.example.com", "TXT", 0, `"heritage=external-dns,external-dns/owner=x"`).
		WithLabel(endpoint.OwnedRecordLabelKey, "web.example.com").
		WithProviderSpecific(propProxied, "true").WithProviderSpecific(propRegionKey, "eu").
		WithProviderSpecific(propComment, "c").WithProviderSpecific(propTags, "b,a")
	adj, err := p.AdjustEndpoints(testCtx(t), []*endpoint.Endpoint{ownership, declared(propProxied, "true"), declared(propRegionKey, "eu")})
	if err != nil {
		t.Fatal(err)
	}
	want := endpoint.ProviderSpecific{{Name: propComment, Value: "c"}, {Name: propTags, Value: "a,b"}, {Name: propProxied, Value: "false"}}
	if !endpoint.SameProviderSpecific(adj[0].ProviderSpecific, want) {
		t.Errorf("the ownership TXT adjusts to %v, want %v", adj[0].ProviderSpecific, want)
	}
	if why := caps.Refuses(adj[0]); why != "" {
		t.Errorf("the ownership TXT is refused: %s", why)
	}
	if why := caps.Refuses(adj[1]); !strings.Contains(why, "Cloudflare proxies A, AAAA and CNAME records only") {
		t.Errorf("a declared proxied TXT: %q, want it refused", why)
	}
	if why := caps.Refuses(adj[2]); !strings.Contains(why, "regional hostnames are for A, AAAA and CNAME records only") {
		t.Errorf("a declared TXT with a region key: %q, want it refused", why)
	}
	if _, ok := ownership.GetProviderSpecific(propProxied); !ok {
		t.Error("AdjustEndpoints modified its argument")
	}
}
