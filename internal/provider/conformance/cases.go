package conformance

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// ownershipValue is a TXT registry value as external-dns serialises it: with the surrounding quotes.
const ownershipValue = `"heritage=external-dns,external-dns/owner=x,external-dns/resource=ingress/default/a"`

func ep(name, recordType string, ttl endpoint.TTL, targets ...string) *endpoint.Endpoint {
	return endpoint.NewWithTTL(name, recordType, ttl, targets...)
}

// basicSet is one record set of each type, the A with several targets, one without a TTL.
func basicSet() []*endpoint.Endpoint {
	return []*endpoint.Endpoint{
		ep("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1", "10.0.0.2", "10.0.0.3"),
		ep("v6.example.com", endpoint.RecordTypeAAAA, 600, "2001:db8::1", "2001:db8::2"),
		ep("alias.example.com", endpoint.RecordTypeCNAME, 120, "lb.example.net"),
		ep("txt.example.com", endpoint.RecordTypeTXT, 60, ownershipValue, "plain text value"),
		ep("nottl.example.com", endpoint.RecordTypeA, 0, "10.0.1.1"),
	}
}

func basicTypes() []string {
	return []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT}
}

func testCreateAndReadBack(t *testing.T, s Subject) {
	requireTypes(t, s, basicTypes()...)
	want := basicSet()
	mustApply(t, s, creates(want...))
	expectRecords(t, s, want...)
	expectServed(t, s, want...)
}

func testUpdateTargetsAndTTL(t *testing.T, s Subject) {
	requireTypes(t, s, basicTypes()...)
	before := basicSet()
	mustApply(t, s, creates(before...))
	after := []*endpoint.Endpoint{
		ep("www.example.com", endpoint.RecordTypeA, 30, "10.0.0.2", "10.0.0.9"), // one kept, one new, one gone, TTL changed
		ep("v6.example.com", endpoint.RecordTypeAAAA, 600, "2001:db8::3"),
		ep("alias.example.com", endpoint.RecordTypeCNAME, 120, "other-lb.example.net"),
		ep("txt.example.com", endpoint.RecordTypeTXT, 90, `"heritage=external-dns,external-dns/owner=y,external-dns/resource=service/default/b"`),
		ep("nottl.example.com", endpoint.RecordTypeA, 3600, "10.0.1.1"), // TTL only
	}
	mustApply(t, s, &plan.Changes{UpdateOld: before, UpdateNew: after})
	expectRecords(t, s, after...)
	expectServed(t, s, after...)
}

func testDelete(t *testing.T, s Subject) {
	requireTypes(t, s, basicTypes()...)
	all := basicSet()
	mustApply(t, s, creates(all...))
	gone, kept := all[:3], all[3:]
	mustApply(t, s, &plan.Changes{Delete: gone})
	expectRecords(t, s, kept...)
	expectServed(t, s, kept...)
	for _, e := range gone {
		expectNotServed(t, s, e.DNSName, e.RecordType)
	}
	mustApply(t, s, &plan.Changes{Delete: kept})
	expectRecords(t, s)
}

// testOwnershipTXT writes records with their registry TXT records beside them, as the TXT registry
// does ("a-www" guards "www"), then removes one pair.
func testOwnershipTXT(t *testing.T, s Subject) {
	requireTypes(t, s, endpoint.RecordTypeA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT)
	owned := []*endpoint.Endpoint{
		ep("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1", "10.0.0.2"),
		ep("a-www.example.com", endpoint.RecordTypeTXT, 300, ownershipValue),
		ep("app.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net"),
		ep("cname-app.example.com", endpoint.RecordTypeTXT, 300, ownershipValue),
	}
	mustApply(t, s, creates(owned...))
	expectRecords(t, s, owned...)
	expectServed(t, s, owned...)
	mustApply(t, s, &plan.Changes{Delete: owned[2:]})
	expectRecords(t, s, owned[:2]...)
	expectNotServed(t, s, "cname-app.example.com", endpoint.RecordTypeTXT)
}

// testIdempotentReapply feeds Records back as an update of every record set to itself: nothing may
// change and nothing may be rejected.
func testIdempotentReapply(t *testing.T, s Subject) {
	requireTypes(t, s, basicTypes()...)
	want := basicSet()
	mustApply(t, s, creates(want...))
	current := records(t, s)
	mustApply(t, s, &plan.Changes{UpdateOld: current, UpdateNew: current})
	expectRecords(t, s, want...)
	again := records(t, s)
	if len(again) != len(current) {
		t.Fatalf("re-apply changed the number of record sets: %d → %d", len(current), len(again))
	}
	for i := range again {
		if describe(again[i], 0) != describe(current[i], 0) {
			t.Fatalf("re-apply changed %s into %s", describe(current[i], 0), describe(again[i], 0))
		}
	}
	expectServed(t, s, want...)
}

// testReplaceTypeAtName deletes an A and creates a CNAME at the same name in one call.
func testReplaceTypeAtName(t *testing.T, s Subject) {
	requireTypes(t, s, endpoint.RecordTypeA, endpoint.RecordTypeCNAME)
	a := ep("svc.example.com", endpoint.RecordTypeA, 300, "10.0.0.1")
	mustApply(t, s, creates(a))
	c := ep("svc.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net")
	mustApply(t, s, &plan.Changes{Delete: []*endpoint.Endpoint{a}, Create: []*endpoint.Endpoint{c}})
	expectRecords(t, s, c)
	expectServed(t, s, c)
}

func testOutsideZoneRejected(t *testing.T, s Subject) {
	requireTypes(t, s, endpoint.RecordTypeA, endpoint.RecordTypeTXT)
	inside := []*endpoint.Endpoint{
		ep("in.example.com", endpoint.RecordTypeA, 300, "10.0.0.1"),
		ep("a-in.example.com", endpoint.RecordTypeTXT, 300, ownershipValue),
	}
	outside := ep("www.other.org", endpoint.RecordTypeA, 300, "10.0.0.2")
	lookalike := ep("www.notexample.com", endpoint.RecordTypeA, 300, "10.0.0.3") // suffix, not a label boundary
	err := s.Provider.ApplyChanges(ctx(t), creates(inside[0], outside, lookalike, inside[1]))
	expectRejected(t, err, "CREATE www.other.org A", "CREATE www.notexample.com A")
	expectRecords(t, s, inside...)
	expectServed(t, s, inside...)
}

func testOutsideZoneUntouched(t *testing.T, s Subject) {
	if s.SeedOutside == nil {
		t.Skip("subject cannot seed records outside its zone")
	}
	requireTypes(t, s, endpoint.RecordTypeA)
	stillThere := s.SeedOutside(t)
	in := ep("www.example.com", endpoint.RecordTypeA, 300, "10.0.0.1")
	mustApply(t, s, creates(in))
	expectRecords(t, s, in) // the outside record is not listed
	mustApply(t, s, &plan.Changes{Delete: []*endpoint.Endpoint{in}})
	expectRecords(t, s)
	stillThere(t)
}

// testBackendRejection makes the backend refuse one change (a CNAME beside an A, which no DNS server
// may hold) in a call with other changes, which must still apply.
func testBackendRejection(t *testing.T, s Subject) {
	requireTypes(t, s, endpoint.RecordTypeA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT)
	a := ep("taken.example.com", endpoint.RecordTypeA, 300, "10.0.0.1")
	old := ep("old.example.com", endpoint.RecordTypeA, 300, "10.0.0.5")
	upd := ep("upd.example.com", endpoint.RecordTypeTXT, 300, "v1")
	mustApply(t, s, creates(a, old, upd))

	clash := ep("taken.example.com", endpoint.RecordTypeCNAME, 300, "lb.example.net")
	fresh := ep("fresh.example.com", endpoint.RecordTypeA, 300, "10.0.0.2")
	freshTXT := ep("a-fresh.example.com", endpoint.RecordTypeTXT, 300, ownershipValue)
	upd2 := ep("upd.example.com", endpoint.RecordTypeTXT, 300, "v2")
	err := s.Provider.ApplyChanges(ctx(t), &plan.Changes{
		Create:    []*endpoint.Endpoint{fresh, clash, freshTXT},
		UpdateOld: []*endpoint.Endpoint{upd},
		UpdateNew: []*endpoint.Endpoint{upd2},
		Delete:    []*endpoint.Endpoint{old},
	})
	expectRejected(t, err, fmt.Sprintf("%s taken.example.com CNAME", provider.ActionCreate))
	expectRecords(t, s, a, fresh, freshTXT, upd2)
	expectServed(t, s, a, fresh, freshTXT, upd2)
	expectNotServed(t, s, "old.example.com", endpoint.RecordTypeA)
}

// testManyNames applies a few hundred names with their ownership records in one call.
func testManyNames(t *testing.T, s Subject) {
	requireTypes(t, s, endpoint.RecordTypeA, endpoint.RecordTypeTXT)
	var want []*endpoint.Endpoint
	for i := 0; i < 300; i++ {
		want = append(want,
			ep(fmt.Sprintf("host%d.example.com", i), endpoint.RecordTypeA, 300, fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)),
			ep(fmt.Sprintf("a-host%d.example.com", i), endpoint.RecordTypeTXT, 300, ownershipValue))
	}
	mustApply(t, s, creates(want...))
	expectRecords(t, s, want...)
	expectServed(t, s, want[0], want[1], want[len(want)-2])
	mustApply(t, s, &plan.Changes{Delete: want})
	expectRecords(t, s)
}
