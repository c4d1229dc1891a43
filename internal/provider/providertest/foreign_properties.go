package providertest

import (
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// ForeignPropertiesLeaveTheRecordAlone fails the test unless p, a provider of a kind that reads the
// properties reads (Kind.Properties) and holds the zone example.com, published under the TXT registry
// as the app builds a view's provider (provider.OwnPropertiesOnly), leaves an A record carrying the
// properties foreign alone: once the registry's cache comes from a listing, the unchanged record plans
// nothing, and updating its target sends no TXT change. Sources copy every cloudflare-, aws-, azure-
// annotation to a property whichever provider runs (a chart shared with a Cloudflare cluster sets
// cloudflare-proxied), and a provider that reads none lists the record and its TXT without them.
func ForeignPropertiesLeaveTheRecordAlone(t *testing.T, p provider.Provider, reads []string, foreign ...endpoint.ProviderSpecificProperty) {
	t.Helper()
	rec := &BatchRecorder{Wrapped: provider.Wrapped{Provider: p}}
	reg, err := txt.New(provider.OwnPropertiesOnly(rec, reads), txt.Config{OwnerID: "x", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const name = "web.example.com"
	desired := func(target string) []*endpoint.Endpoint {
		e := endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, target)
		for _, f := range foreign {
			e = e.WithProviderSpecific(f.Name, f.Value)
		}
		out, err := reg.AdjustEndpoints(ctx, []*endpoint.Endpoint{e})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	listed := func() []*endpoint.Endpoint {
		reg.Invalidate()
		eps, err := reg.Records(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range eps {
			if e.DNSName == name && e.RecordType == endpoint.RecordTypeA && e.Labels[endpoint.OwnerLabelKey] == "x" {
				return []*endpoint.Endpoint{e}
			}
		}
		t.Fatalf("%s not listed as ours: %v", name, eps)
		return nil
	}

	if err := reg.ApplyChanges(ctx, &plan.Changes{Create: desired("192.0.2.1")}); err != nil {
		t.Fatal(err)
	}
	res := plan.Calculate(plan.Input{Desired: desired("192.0.2.1"), Current: listed(), OwnerID: "x", Policy: plan.PolicySync,
		ManagedRecordTypes: []string{endpoint.RecordTypeA}})
	if res.Changes.HasChanges() {
		t.Errorf("after a listing, the unchanged record plans update %v, want nothing", res.Changes.UpdateNew)
	}
	if err := reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: listed(), UpdateNew: desired("192.0.2.2")}); err != nil {
		t.Fatal(err)
	}
	if got := TXTChanges(rec.Last(t)); len(got) != 0 {
		t.Errorf("after a listing, updating the target also sent TXT changes %q, want none", got)
	}
}
