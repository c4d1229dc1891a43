package azure

import (
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/azurednsemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// TestAnotherProvidersPropertyDoesNotRewriteTheRecord: sources copy every cloudflare-, aws-, azure-
// annotation to a property, whichever provider runs (a chart shared with a Cloudflare cluster sets
// cloudflare-proxied). Azure DNS reads no property, so a record and its ownership TXT list without
// them. Once the registry's cache comes from a listing, the unchanged record must plan nothing, and
// updating its target must not rewrite its TXT.
func TestAnotherProvidersPropertyDoesNotRewriteTheRecord(t *testing.T) {
	emu, client, path := emulator(t, azurednsemu.Options{})
	if err := emu.AddZone(false, testSub, testRG, "example.com"); err != nil {
		t.Fatal(err)
	}
	rec := &providertest.BatchRecorder{Wrapped: provider.Wrapped{Provider: newTestProvider(t, client, path, Config{})}}
	// As the app builds a view's provider: its kind's properties only (provider.OwnPropertiesOnly).
	reg, err := txt.New(provider.OwnPropertiesOnly(rec, (&AzureFlags{}).Kinds()[0].Properties), txt.Config{OwnerID: "x", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const name = "web.example.com"
	desired := func(target string) []*endpoint.Endpoint {
		e := endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, target).WithProviderSpecific("cloudflare/proxied", "true").
			WithProviderSpecific("azure/anything", "x")
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
	if got := providertest.TXTChanges(rec.Last(t)); len(got) != 0 {
		t.Errorf("after a listing, updating the target also sent TXT changes %q, want none", got)
	}
}
