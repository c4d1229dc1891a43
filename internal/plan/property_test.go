package plan_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

const propertyOwner = "cluster-a"

// rowID names a plan row (name, set identifier) the way the plan compares names.
type rowID struct{ name, setID string }

func rowOf(e *endpoint.Endpoint) rowID {
	return rowID{strings.ToLower(strings.TrimSuffix(e.DNSName, ".")), e.SetIdentifier}
}

// TestCalculateProperties checks the safety and convergence properties of the plan on random desired
// and current sets over a small name space, so that names collide often. Set ZK_PLAN_SEED to replay a
// failing run.
func TestCalculateProperties(t *testing.T) {
	seed := int64(20260901)
	if s := os.Getenv("ZK_PLAN_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("ZK_PLAN_SEED=%q: %v", s, err)
		}
		seed = v
	}
	iterations := 2000
	if testing.Short() {
		iterations = 50
	}
	t.Logf("seed %d (replay with ZK_PLAN_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	filter, err := plan.NewDomainFilter([]string{"example.com"}, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < iterations; i++ {
		desired := randomDesired(rng)
		seedRecords := randomCurrent(rng)
		for _, policy := range []plan.Policy{plan.PolicySync, plan.PolicyUpsertOnly, plan.PolicyCreateOnly} {
			ctx := fmt.Sprintf("iteration %d, policy %s (seed %d)", i, policy, seed)
			checkOnce(t, ctx, desired, seedRecords, policy, filter)
			if t.Failed() {
				t.FailNow()
			}
		}
	}
}

func checkOnce(t *testing.T, ctx string, desired, seedRecords []*endpoint.Endpoint, policy plan.Policy, filter plan.DomainFilter) {
	t.Helper()
	zone := inmemory.New()
	// The provider refuses some seeds (a CNAME beside other data), as a real server would; what it
	// keeps is the current state.
	for _, e := range seedRecords {
		_ = zone.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{e}})
	}
	current, _ := zone.Records(context.Background())
	in := plan.Input{Desired: desired, Current: current, OwnerID: propertyOwner, Policy: policy, DomainFilter: filter}
	res := plan.Calculate(in)
	ch := res.Changes

	// Determinism: the same sets in another order give the same plan.
	shuffled := in
	shuffled.Desired = slices.Clone(desired)
	shuffled.Current = slices.Clone(current)
	rand.Shuffle(len(shuffled.Desired), func(i, j int) { shuffled.Desired[i], shuffled.Desired[j] = shuffled.Desired[j], shuffled.Desired[i] })
	rand.Shuffle(len(shuffled.Current), func(i, j int) { shuffled.Current[i], shuffled.Current[j] = shuffled.Current[j], shuffled.Current[i] })
	if again := plan.Calculate(shuffled); !reflect.DeepEqual(again, res) {
		t.Errorf("%s: the plan depends on input order:\n %+v\n %+v", ctx, res, again)
	}

	// Rows holding a record that is not ours: nothing there may be created, updated or deleted.
	foreignRows := map[rowID]bool{}
	for _, c := range current {
		if c.Owner() != propertyOwner {
			foreignRows[rowOf(c)] = true
		}
	}
	isCurrent := map[*endpoint.Endpoint]bool{}
	for _, c := range current {
		isCurrent[c] = true
	}

	// Safety: UpdateOld and Delete only ever name current records that carry our owner label.
	for _, e := range append(append([]*endpoint.Endpoint(nil), ch.UpdateOld...), ch.Delete...) {
		if !isCurrent[e] {
			t.Errorf("%s: %s is not a current record", ctx, e)
		}
		if e.Owner() != propertyOwner {
			t.Errorf("%s: update/delete of %s owned by %q", ctx, e, e.Owner())
		}
	}
	if len(ch.UpdateOld) != len(ch.UpdateNew) {
		t.Fatalf("%s: %d UpdateOld, %d UpdateNew", ctx, len(ch.UpdateOld), len(ch.UpdateNew))
	}
	for i := range ch.UpdateNew {
		if ch.UpdateNew[i].Owner() != ch.UpdateOld[i].Owner() || rowOf(ch.UpdateNew[i]) != rowOf(ch.UpdateOld[i]) || ch.UpdateNew[i].RecordType != ch.UpdateOld[i].RecordType {
			t.Errorf("%s: update %s -> %s changes the owner or the key", ctx, ch.UpdateOld[i], ch.UpdateNew[i])
		}
	}
	// No create in a row where someone else holds a record.
	for _, e := range ch.Create {
		if foreignRows[rowOf(e)] {
			t.Errorf("%s: create %s in a row with a foreign or unowned record", ctx, e)
		}
	}
	// Policies.
	if policy != plan.PolicySync && len(ch.Delete) > 0 {
		t.Errorf("%s: %d deletes", ctx, len(ch.Delete))
	}
	if policy == plan.PolicyCreateOnly && len(ch.UpdateNew) > 0 {
		t.Errorf("%s: %d updates", ctx, len(ch.UpdateNew))
	}
	// Filters: only managed types, only names under example.com.
	for _, e := range allChanged(ch) {
		if !filter.Match(e.DNSName) {
			t.Errorf("%s: %s is outside the domain filter", ctx, e)
		}
		switch e.RecordType {
		case endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME:
		default:
			t.Errorf("%s: %s is not a managed type", ctx, e)
		}
	}

	// Convergence: apply as the registry would (stamping our owner on creates), plan again, and
	// expect nothing left to do outside the rows someone else holds or the provider refused.
	applied := &plan.Changes{UpdateOld: ch.UpdateOld, UpdateNew: ch.UpdateNew, Delete: ch.Delete}
	for _, e := range ch.Create {
		applied.Create = append(applied.Create, e.DeepCopy().WithLabel(endpoint.OwnerLabelKey, propertyOwner))
	}
	skip := map[rowID]bool{}
	for r := range foreignRows {
		skip[r] = true
	}
	if err := zone.ApplyChanges(context.Background(), applied); err != nil {
		ae, ok := provider.AsApplyError(err)
		if !ok {
			t.Fatalf("%s: apply: %v", ctx, err)
		}
		for _, r := range ae.Rejected {
			// Under sync the plan removes what stands in its way first, so a clean row is never refused.
			if policy == plan.PolicySync && !foreignRows[rowOf(r.Endpoint)] {
				t.Errorf("%s: provider refused %s %s in a clean row: %v", ctx, r.Action, r.Endpoint, r.Err)
			}
			skip[rowOf(r.Endpoint)] = true
		}
	}
	after, _ := zone.Records(context.Background())
	again := plan.Calculate(plan.Input{Desired: desired, Current: after, OwnerID: propertyOwner, Policy: policy, DomainFilter: filter})
	for _, e := range allChanged(again.Changes) {
		if !skip[rowOf(e)] {
			t.Errorf("%s: not converged, second plan still changes %s\n first plan: %s\n second plan: %s", ctx, e, describeChanges(ch), describeChanges(again.Changes))
		}
	}
}

func allChanged(c *plan.Changes) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	out = append(out, c.Create...)
	out = append(out, c.UpdateNew...)
	return append(out, c.Delete...)
}

func describeChanges(c *plan.Changes) string {
	return fmt.Sprintf("create=%v update=%v->%v delete=%v", c.Create, c.UpdateOld, c.UpdateNew, c.Delete)
}

// The name space is small so that names collide often. Functions rather than package variables, so
// no test can change what another sees.
func propertyNames() []string {
	return []string{"a.example.com", "b.example.com", "c.example.com", "x.y.example.com", "A.Example.com", "example.org", "badexample.com"}
}
func propertySetIDs() []string { return []string{"", "", "eu"} }
func propertyResources() []string {
	return []string{"service/default/a", "service/default/b", "ingress/default/c"}
}

func pick[T any](rng *rand.Rand, from []T) T { return from[rng.Intn(len(from))] }

func randomEndpoint(rng *rand.Rand) *endpoint.Endpoint {
	var recordType string
	var pool []string
	switch rng.Intn(3) {
	case 0:
		recordType, pool = endpoint.RecordTypeA, []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"}
	case 1:
		recordType, pool = endpoint.RecordTypeAAAA, []string{"2001:db8::1", "2001:0db8:0:0::2", "2001:db8::3"}
	default:
		recordType, pool = endpoint.RecordTypeCNAME, []string{"lb1.example.net", "LB2.example.net", "lb3.example.net."}
	}
	targets := []string{pick(rng, pool)}
	if rng.Intn(3) == 0 {
		if t := pick(rng, pool); t != targets[0] {
			targets = append(targets, t)
		}
	}
	e := endpoint.NewWithTTL(pick(rng, propertyNames()), recordType, endpoint.TTL(pick(rng, []int{0, 0, 300, 600})), targets...)
	e.SetIdentifier = pick(rng, propertySetIDs())
	if rng.Intn(5) == 0 {
		e.SetProviderSpecific("aws/weight", pick(rng, []string{"10", "20"}))
	}
	return e.WithLabel(endpoint.ResourceLabelKey, pick(rng, propertyResources()))
}

func randomDesired(rng *rand.Rand) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, rng.Intn(12))
	for i := range out {
		out[i] = randomEndpoint(rng)
	}
	return out
}

// randomCurrent mixes our records, another owner's, unowned ones and ownership TXTs.
func randomCurrent(rng *rand.Rand) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, rng.Intn(10))
	for i := range out {
		if rng.Intn(10) == 0 {
			out[i] = endpoint.New("a-"+pick(rng, propertyNames()), endpoint.RecordTypeTXT, `"heritage=external-dns,external-dns/owner=cluster-a"`).
				WithLabel(endpoint.OwnerLabelKey, propertyOwner)
			continue
		}
		e := randomEndpoint(rng)
		switch rng.Intn(5) {
		case 0:
			e.WithLabel(endpoint.OwnerLabelKey, "cluster-b")
		case 1:
			delete(e.Labels, endpoint.OwnerLabelKey)
			delete(e.Labels, endpoint.ResourceLabelKey)
		default:
			e.WithLabel(endpoint.OwnerLabelKey, propertyOwner)
		}
		out[i] = e
	}
	return out
}
