package aws

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// TestAdjustLeavesTheCallersEndpoints: AdjustEndpoints copies on write, so its output may be the
// caller's endpoints and share their targets and labels, but it never writes them: not a field, not a
// target, not a label, not a property, nor the spare room behind the caller's slices (an append into
// it would change what another holder of the array reads). Every record of adjustCases goes through
// the provider directly (with and without the shortcuts, with and without zones that make a pin
// matter) and behind OwnPropertiesOnly, as the controller and the TXT registry call it; each record
// also gets foreign properties and a pin in front of its own, so that copies are needed.
func TestAdjustLeavesTheCallersEndpoints(t *testing.T) {
	var desired []*endpoint.Endpoint
	for _, e := range adjustCases() {
		desired = append(desired, e)
		f := e.DeepCopy()
		f.ProviderSpecific = append(endpoint.ProviderSpecific{{Name: "cloudflare/proxied", Value: "true"},
			{Name: "aws/hosted-zone-id", Value: "/hostedzone/Z2"}}, f.ProviderSpecific...)
		desired = append(desired, f)
	}
	// Spare room behind every slice, filled with a mark an append would overwrite.
	mark := endpoint.ProviderSpecificProperty{Name: "mark", Value: "mark"}
	for _, e := range desired {
		ps := make(endpoint.ProviderSpecific, len(e.ProviderSpecific), len(e.ProviderSpecific)+4)
		copy(ps, e.ProviderSpecific)
		for i := len(ps); i < cap(ps); i++ {
			ps[:cap(ps)][i] = mark
		}
		e.ProviderSpecific = ps
		if len(ps) == 0 && len(e.Targets)%2 == 0 {
			e.ProviderSpecific = nil // the commonest form, which the shortcut returns as it is
		}
		ts := make(endpoint.Targets, len(e.Targets), len(e.Targets)+2)
		copy(ts, e.Targets)
		ts[:cap(ts)][len(ts)], ts[:cap(ts)][len(ts)+1] = "mark", "mark"
		e.Targets = ts
	}
	want := make([]*endpoint.Endpoint, len(desired))
	for i, e := range desired {
		w := *e // DeepCopy would turn an empty slice nil
		w.Targets, w.ProviderSpecific, w.Labels = slices.Clone(e.Targets), slices.Clone(e.ProviderSpecific), maps.Clone(e.Labels)
		want[i] = &w
	}
	check := func(how string) {
		t.Helper()
		for i, e := range desired {
			if !reflect.DeepEqual(e, want[i]) {
				t.Fatalf("%s: the caller's endpoint %d changed:\n%#v\nwas\n%#v", how, i, e, want[i])
			}
			for _, ps := range e.ProviderSpecific[len(e.ProviderSpecific):cap(e.ProviderSpecific)] {
				if ps != mark {
					t.Fatalf("%s: endpoint %d's properties were appended to in place: %v", how, i, ps)
				}
			}
			for _, s := range e.Targets[len(e.Targets):cap(e.Targets)] {
				if s != "mark" {
					t.Fatalf("%s: endpoint %d's targets were appended to in place: %q", how, i, s)
				}
			}
		}
	}
	shared := 0
	for _, preferCNAME := range []bool{false, true} {
		p := &Provider{cfg: Config{EvaluateTargetHealth: true, PreferCNAME: preferCNAME}}
		for _, zones := range [][]zone{nil, {{id: "Z1", name: "big.test"}}, {{id: "Z1", name: "big.test"}, {id: "Z2", name: "big.test", private: true}}} {
			p.zoneList = zones
			for _, skipPlain := range []bool{true, false} {
				p.adjustEach(desired, skipPlain)
				check("adjustEach")
			}
			out, err := provider.OwnPropertiesOnly(p, (&AWSFlags{}).Kind().Properties).(provider.EndpointAdjuster).AdjustEndpoints(context.Background(), desired)
			if err != nil {
				t.Fatal(err)
			}
			check("OwnPropertiesOnly")
			for _, o := range out {
				for _, e := range desired {
					if o == e {
						shared++
					}
				}
			}
		}
	}
	if shared == 0 {
		t.Error("no endpoint came back as the caller's own: the test does not cover the copy-free path")
	}
}

// TestAdjustAllocations pins what AdjustEndpoints allocates for the desired records of an idle resync
// at scale: plain A records with their resource label and no property come back as they are, so a
// call allocates its result slice and nothing per record (it was a deep copy each: 4 allocations,
// 9 MB per idle resync at 20,000 Ingresses in BenchmarkConvergedHeap). A CNAME to a load balancer
// (two aliases) costs its two endpoints and what they hold.
func TestAdjustAllocations(t *testing.T) {
	p := &Provider{cfg: Config{EvaluateTargetHealth: true}, zoneList: []zone{{id: "Z1", name: "big.test"}}}
	adj := provider.OwnPropertiesOnly(p, (&AWSFlags{}).Kind().Properties).(provider.EndpointAdjuster)
	const n = 1000
	plain := make([]*endpoint.Endpoint, n)
	for i := range plain {
		plain[i] = labelled(ep("app.big.test", "A", 0, "10.0.0.1"))
	}
	if got := testing.AllocsPerRun(20, func() { _, _ = adj.AdjustEndpoints(context.Background(), plain) }); got > 1 {
		t.Errorf("adjusting %d plain A records: %.0f allocations, want 1 (the result)", n, got)
	}
	lb := []*endpoint.Endpoint{labelled(ep("lb.big.test", "CNAME", 0, elb))}
	if got := testing.AllocsPerRun(100, func() { _, _ = adj.AdjustEndpoints(context.Background(), lb) }); got > 11 {
		t.Errorf("adjusting a CNAME to a load balancer: %.0f allocations, want at most 11", got)
	}
}
