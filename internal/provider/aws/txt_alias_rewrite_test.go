package aws

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/providertest"
)

// TestUpdatingAnAliasAfterAListingLeavesItsTXTAlone: Route 53 keeps no alias properties on a TXT, so
// the ownership TXT of an alias lists without alias and aws/evaluate-target-health. Once the
// registry's cache comes from a listing, updating the alias's target must not rewrite its TXT (an
// UPSERT of the same value, counted against Route 53's batch limits), while a weighted record's TXT
// keeps its weight and set identifier, and is rewritten when the weight changes.
//
// The registry's cache lasts an hour, so that what it lists between writes comes from the cache unless
// the test drops it; the test runs with the registry patching its cache with what it sent (as before
// issue 15) and with Route 53's listed form (provider.ExactWriter, as the controller runs it).
func TestUpdatingAnAliasAfterAListingLeavesItsTXTAlone(t *testing.T) {
	for _, tc := range []struct {
		name     string
		notExact bool
	}{{"patched with what was sent", true}, {"patched with the listed form", false}} {
		t.Run(tc.name, func(t *testing.T) {
			updateAnAliasAfterAListing(t, newExactStack(t, exactOptions{cacheInterval: time.Hour, notExact: tc.notExact}))
		})
	}
}

func updateAnAliasAfterAListing(t *testing.T, s *exactStack) {
	srv, rec, reg := s.srv, s.rec, s.reg
	ctx := ctxT(t)

	alias := func(target string) *endpoint.Endpoint {
		e := endpoint.New("api.one.test", endpoint.RecordTypeA, target)
		e.SetProviderSpecific(propAlias, "true")
		e.SetProviderSpecific(propEvaluateTargetHealth, "true")
		return e
	}
	weightedAlias := func(target string) *endpoint.Endpoint {
		e := endpoint.New("wa.one.test", endpoint.RecordTypeA, target)
		e.SetIdentifier = "green"
		e.SetProviderSpecific(propAlias, "true")
		e.SetProviderSpecific(propWeight, "5")
		return e
	}
	weighted := func(target, weight string) *endpoint.Endpoint {
		e := endpoint.New("w.one.test", endpoint.RecordTypeA, target)
		e.SetIdentifier = "blue"
		e.SetProviderSpecific(propWeight, weight)
		return e
	}
	adjusted := func(eps ...*endpoint.Endpoint) []*endpoint.Endpoint {
		out, err := reg.AdjustEndpoints(ctx, eps)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// records returns the registry's A records by name, listed afresh when relist, else from its cache.
	records := func(relist bool) map[string]*endpoint.Endpoint {
		if relist {
			reg.Invalidate()
		}
		eps, err := reg.Records(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*endpoint.Endpoint{}
		for _, e := range eps {
			if e.RecordType == endpoint.RecordTypeA {
				out[e.DNSName] = e
			}
		}
		return out
	}
	const lb1, lb2 = "lb-1-123.us-east-1.elb.amazonaws.com", "lb-2-123.us-east-1.elb.amazonaws.com"

	create := adjusted(alias(lb1), weightedAlias(lb1), weighted("192.0.2.1", "10"))
	if err := reg.ApplyChanges(ctx, &plan.Changes{Create: create}); err != nil {
		t.Fatal(err)
	}
	if got := providertest.TXTChanges(rec.Last(t)); len(got) != 3 {
		t.Fatalf("creating three records sent TXT changes %q, want three creates", got)
	}

	// Every target changes, every routing property stays: only the records are written.
	cur := records(true)
	old := []*endpoint.Endpoint{cur["api.one.test"], cur["wa.one.test"], cur["w.one.test"]}
	for i, e := range old {
		if e == nil || e.Labels[endpoint.OwnerLabelKey] != "x" {
			t.Fatalf("record %d not listed as ours: %v", i, cur)
		}
	}
	nu := adjusted(alias(lb2), weightedAlias(lb2), weighted("192.0.2.2", "10"))
	if err := reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: old, UpdateNew: nu}); err != nil {
		t.Fatal(err)
	}
	batch := rec.Last(t)
	if got := providertest.TXTChanges(batch); len(got) != 0 {
		t.Errorf("after a listing, updating three targets also sent TXT changes %q, want none", got)
	}
	if len(batch.UpdateNew) != 3 {
		t.Errorf("sent %d updates, want the three records", len(batch.UpdateNew))
	}
	zone := dump(srv, "one.test")
	for _, k := range []string{"a-w.one.test. TXT blue", "a-wa.one.test. TXT green"} {
		rs, ok := zone[k]
		if !ok || rs.Weight == nil {
			t.Errorf("the weighted TXT %q is %+v, want it kept with its weight", k, rs)
		}
	}

	// The weight changes: the TXT must follow, whether the cache comes from a listing or from the
	// registry's own write.
	for _, step := range []struct {
		relist bool
		weight string
	}{{true, "20"}, {false, "30"}} {
		cur := records(step.relist)
		if err := reg.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{cur["w.one.test"]},
			UpdateNew: adjusted(weighted("192.0.2.2", step.weight))}); err != nil {
			t.Fatal(err)
		}
		got := providertest.TXTChanges(rec.Last(t))
		want := []string{fmt.Sprintf("update a-w.one.test \"blue\" [{aws/weight %s}]", step.weight)}
		if !slices.Equal(got, want) {
			t.Errorf("relisted %v: changing the weight to %s sent TXT changes %q, want %q", step.relist, step.weight, got, want)
		}
		if rs := dump(srv, "one.test")["a-w.one.test. TXT blue"]; rs.Weight == nil || string(*rs.Weight) != step.weight {
			t.Errorf("relisted %v: the weighted TXT is %+v, want weight %s", step.relist, rs, step.weight)
		}
	}
}
