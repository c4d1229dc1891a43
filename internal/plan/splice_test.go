package plan_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// TestSpliceEqualsPlanOfEverything: a plan of everything, spliced with a plan of the names that
// changed since, reports what a new plan of everything reports: the same conflicts, owner mismatches
// and held changes, in the same order. Random desired and current sets over a few names (so that
// they collide), random names changed, every policy.
func TestSpliceEqualsPlanOfEverything(t *testing.T) {
	rng := rand.New(rand.NewSource(20261126))
	filter, err := plan.NewDomainFilter([]string{"example.com"}, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for i := range 3000 {
		policy := pick(rng, []plan.Policy{plan.PolicySync, plan.PolicyUpsertOnly, plan.PolicyCreateOnly})
		scope := map[string]bool{}
		for _, n := range propertyNames() {
			if rng.Intn(3) == 0 {
				scope[plan.NameKey(n)] = true
			}
		}
		inScope := func(e *endpoint.Endpoint) bool { return scope[plan.NameKey(e.DNSName)] }
		// Before and after differ only at names in scope; part is the plan of those names alone.
		desired0, current0 := randomDesired(rng), randomCurrent(rng)
		desired1 := append(keep(desired0, inScope, false), keep(randomDesired(rng), inScope, true)...)
		current1 := append(keep(current0, inScope, false), keep(randomCurrent(rng), inScope, true)...)
		calc := func(desired, current []*endpoint.Endpoint) plan.Result {
			return plan.Calculate(plan.Input{Desired: desired, Current: current, OwnerID: propertyOwner, Policy: policy, DomainFilter: filter})
		}
		before, want := calc(desired0, current0), calc(desired1, current1)
		part := calc(keep(desired1, inScope, true), keep(current1, inScope, true))
		got := before.Splice(part, func(name string) bool { return scope[name] })
		ctx := fmt.Sprintf("iteration %d, policy %s, scope %v", i, policy, scope)
		if !reflect.DeepEqual(got.Conflicts, want.Conflicts) {
			t.Fatalf("%s: conflicts\n got %+v\nwant %+v", ctx, got.Conflicts, want.Conflicts)
		}
		if !reflect.DeepEqual(got.OwnerMismatches, want.OwnerMismatches) {
			t.Fatalf("%s: owner mismatches\n got %+v\nwant %+v", ctx, got.OwnerMismatches, want.OwnerMismatches)
		}
		if !reflect.DeepEqual(got.HeldByPolicy, want.HeldByPolicy) {
			t.Fatalf("%s: held changes\n got %+v\nwant %+v", ctx, got.HeldByPolicy, want.HeldByPolicy)
		}
		if got.Changes != part.Changes {
			t.Fatalf("%s: the spliced changes are not the part's", ctx)
		}
		if len(want.Conflicts)+len(want.OwnerMismatches)+len(want.HeldByPolicy) > 0 &&
			len(before.Conflicts)+len(before.OwnerMismatches)+len(before.HeldByPolicy) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 300 {
		t.Fatalf("only %d of 3000 iterations had something to splice on both sides", nonEmpty)
	}
}

// keep is the endpoints of eps that in accepts (want true) or rejects (want false).
func keep(eps []*endpoint.Endpoint, in func(*endpoint.Endpoint) bool, want bool) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for _, e := range eps {
		if in(e) == want {
			out = append(out, e)
		}
	}
	return out
}
