package plan

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

type planCase struct {
	desc             string
	desired, current []recBuilder
	policy           Policy // sync when empty in these tables
	want             []string
}

func runPlanCases(t *testing.T, cases []planCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			policy := tc.policy
			if policy == "" {
				policy = PolicySync
			}
			res := Calculate(Input{Desired: eps(tc.desired...), Current: eps(tc.current...), OwnerID: testOwner, Policy: policy})
			if got := summary(res); !slices.Equal(got, tc.want) {
				t.Errorf("plan:\n  got  %s\n  want %s", strings.Join(got, "\n       "), strings.Join(tc.want, "\n       "))
			}
		})
	}
}

// TestPerRow covers every situation of the per-row table (reference section 7.2) and the owner rules
// of section 6.6.
func TestPerRow(t *testing.T) {
	runPlanCases(t, []planCase{
		{
			desc:    "nothing current: create",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			want:    []string{"create a.example.com A 1.1.1.1 {resource=svc/a}"},
		},
		{
			desc: "nothing current: one create per type",
			desired: []recBuilder{
				rec("a.example.com", "A", "1.1.1.1").from("svc/a"),
				rec("a.example.com", "AAAA", "2001:db8::1").from("svc/a"),
			},
			want: []string{
				"create a.example.com A 1.1.1.1 {resource=svc/a}",
				"create a.example.com AAAA 2001:db8::1 {resource=svc/a}",
			},
		},
		{
			desc:    "no candidates: delete every owned current record",
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner), rec("a.example.com", "AAAA", "2001:db8::1").owned(testOwner)},
			want: []string{
				"delete a.example.com A 1.1.1.1 {owner=me}",
				"delete a.example.com AAAA 2001:db8::1 {owner=me}",
			},
		},
		{
			desc:    "no candidates: a foreign record is left alone and not reported",
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned("other")},
		},
		{
			desc:    "no candidates: an unowned record is left alone and not reported",
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1")},
		},
		{
			desc:    "both, type only current: delete it",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{
				rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a"),
				rec("a.example.com", "AAAA", "2001:db8::1").owned(testOwner).from("svc/a"),
			},
			want: []string{"delete a.example.com AAAA 2001:db8::1 {owner=me resource=svc/a}"},
		},
		{
			desc:    "both, type only current and foreign: the blocked delete is reported",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{
				rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a"),
				rec("a.example.com", "AAAA", "2001:db8::1").owned("other"),
			},
			want: []string{`mismatch DELETE a.example.com AAAA owner=me foreign="other" resource=svc/a`},
		},
		{
			desc:    "both, type only in candidates, row all ours: create",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a"), rec("a.example.com", "AAAA", "2001:db8::1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a")},
			want:    []string{"create a.example.com AAAA 2001:db8::1 {resource=svc/a}"},
		},
		{
			desc:    "both, type only in candidates, row has a foreign record: no create",
			desired: []recBuilder{rec("a.example.com", "AAAA", "2001:db8::1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned("other").from("svc/x")},
			want: []string{
				`mismatch DELETE a.example.com A owner=me foreign="other" resource=svc/a`,
				`mismatch CREATE a.example.com AAAA owner=me foreign="other" resource=svc/a`,
			},
		},
		{
			desc:    "both, type only in candidates, row has an unowned record: no create",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a"), rec("a.example.com", "AAAA", "2001:db8::1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1")},
			want:    []string{`mismatch CREATE a.example.com AAAA owner=me foreign="" resource=svc/a`},
		},
		{
			desc:    "a foreign record of another set identifier does not block a create",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").set("us").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.2").set("eu").owned("other")},
			want:    []string{"create a.example.com A [us] 1.1.1.1 {resource=svc/a}"},
		},
		{
			desc:    "both, type on both sides, targets differ: update keeps owner, takes the candidate's resource",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.2").from("svc/a").owned("intruder")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/old").label(endpoint.TxtEncryptionNonce, "n1")},
			want: []string{
				"update a.example.com A 1.1.1.1 {owner=me resource=svc/old txtEncryptionNonce=n1} -> a.example.com A 1.1.1.2 {owner=me resource=svc/a txtEncryptionNonce=n1}",
			},
		},
		{
			desc:    "targets equal up to case, trailing dot and order: no update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.2", "1.1.1.1").from("svc/a"), rec("c.example.com", "CNAME", "LB.Example.NET").from("svc/a")},
			current: []recBuilder{
				rec("a.example.com", "A", "1.1.1.1", "1.1.1.2").owned(testOwner).from("svc/a"),
				{&endpoint.Endpoint{DNSName: "c.example.com", RecordType: "CNAME", Targets: endpoint.Targets{"lb.example.net."}, Labels: endpoint.Labels{"owner": testOwner, "resource": "svc/a"}}},
			},
		},
		{
			desc:    "IPv6 compared in canonical form: no update",
			desired: []recBuilder{rec("a.example.com", "AAAA", "2001:0db8:0000:0000:0000:0000:0000:0001").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "AAAA", "2001:db8::1").owned(testOwner).from("svc/a")},
		},
		{
			desc:    "IPv6 that really differs: update",
			desired: []recBuilder{rec("a.example.com", "AAAA", "2001:db8::2").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "AAAA", "2001:db8::1").owned(testOwner).from("svc/a")},
			want:    []string{"update a.example.com AAAA 2001:db8::1 {owner=me resource=svc/a} -> a.example.com AAAA 2001:db8::2 {owner=me resource=svc/a}"},
		},
		{
			desc:    "unset desired TTL never updates",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ttl(300).owned(testOwner).from("svc/a")},
		},
		{
			desc:    "configured TTL equal: no update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ttl(300).from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ttl(300).owned(testOwner).from("svc/a")},
		},
		{
			desc:    "configured TTL differs: update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ttl(600).from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ttl(300).owned(testOwner).from("svc/a")},
			want:    []string{"update a.example.com A 1.1.1.1 ttl=300 {owner=me resource=svc/a} -> a.example.com A 1.1.1.1 ttl=600 {owner=me resource=svc/a}"},
		},
		{
			desc:    "provider-specific value differs: update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ps("aws/weight", "20").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ps("aws/weight", "10").owned(testOwner).from("svc/a")},
			want:    []string{"update a.example.com A 1.1.1.1 aws/weight=10 {owner=me resource=svc/a} -> a.example.com A 1.1.1.1 aws/weight=20 {owner=me resource=svc/a}"},
		},
		{
			desc:    "provider-specific extra on the desired side: update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ps("alias", "true").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a")},
			want:    []string{"update a.example.com A 1.1.1.1 {owner=me resource=svc/a} -> a.example.com A 1.1.1.1 alias=true {owner=me resource=svc/a}"},
		},
		{
			desc:    "provider-specific extra on the current side: update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ps("alias", "true").owned(testOwner).from("svc/a")},
			want:    []string{"update a.example.com A 1.1.1.1 alias=true {owner=me resource=svc/a} -> a.example.com A 1.1.1.1 {owner=me resource=svc/a}"},
		},
		{
			desc:    "provider-specific equal in another order: no update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ps("b", "2").ps("a", "1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").ps("a", "1").ps("b", "2").owned(testOwner).from("svc/a")},
		},
		{
			desc:    "labels alone never update",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/new")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/old")},
		},
		{
			desc:    "update of a foreign record: dropped and reported",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.2").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned("other").from("svc/a")},
			want:    []string{`mismatch UPDATE a.example.com A owner=me foreign="other" resource=svc/a`},
		},
		{
			desc:    "update of an unowned record: dropped and reported",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.2").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1")},
			want:    []string{`mismatch UPDATE a.example.com A owner=me foreign="" resource=svc/a`},
		},
		{
			desc:    "a foreign record already holding the desired value: nothing to do, nothing to report",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned("other")},
		},
		{
			desc:    "names are compared normalised",
			desired: []recBuilder{rec("A.Example.COM.", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a")},
		},
		{
			desc:    "IDNA names are compared in punycode",
			desired: []recBuilder{rec("www.bücher.example", "A", "1.1.1.1").from("svc/a")},
			current: []recBuilder{rec("www.xn--bcher-kva.example", "A", "1.1.1.1").owned(testOwner).from("svc/a")},
		},
		{
			desc:    "set identifiers make separate rows",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").set("eu").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a")},
			want: []string{
				"create a.example.com A [eu] 1.1.1.1 {resource=svc/a}",
				"delete a.example.com A 1.1.1.1 {owner=me resource=svc/a}",
			},
		},
	})
}

// TestConflictResolver covers the PerResource rules (reference section 7.3).
func TestConflictResolver(t *testing.T) {
	runPlanCases(t, []planCase{
		{
			desc:    "CNAME candidate loses to an A candidate",
			desired: []recBuilder{rec("a.example.com", "CNAME", "lb.example.net").from("ingress/default/b"), rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			want: []string{
				"create a.example.com A 1.1.1.1 {resource=svc/a}",
				"conflict a.example.com CNAME winner=svc/a loser=ingress/default/b: CNAME candidate loses to A candidate",
			},
		},
		{
			desc:    "CNAME candidate loses to AAAA; the existing CNAME is deleted",
			desired: []recBuilder{rec("a.example.com", "CNAME", "lb.example.net").from("ingress/default/b"), rec("a.example.com", "AAAA", "2001:db8::1").from("svc/a")},
			current: []recBuilder{rec("a.example.com", "CNAME", "lb.example.net").owned(testOwner).from("ingress/default/b")},
			want: []string{
				"create a.example.com AAAA 2001:db8::1 {resource=svc/a}",
				"delete a.example.com CNAME lb.example.net {owner=me resource=ingress/default/b}",
				"conflict a.example.com CNAME winner=svc/a loser=ingress/default/b: CNAME candidate loses to AAAA candidate",
			},
		},
		{
			desc:    "create picks the smaller target set",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.2").from("svc/a"), rec("a.example.com", "A", "1.1.1.1").from("svc/b")},
			want: []string{
				"create a.example.com A 1.1.1.1 {resource=svc/b}",
				"conflict a.example.com A winner=svc/b loser=svc/a: candidate with the smaller target set wins",
			},
		},
		{
			desc:    "create prefers the shorter target list",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1", "1.1.1.2").from("svc/a"), rec("a.example.com", "A", "1.1.1.9").from("svc/b")},
			want: []string{
				"create a.example.com A 1.1.1.9 {resource=svc/b}",
				"conflict a.example.com A winner=svc/b loser=svc/a: candidate with the smaller target set wins",
			},
		},
		{
			desc:    "equal targets: tie broken by resource name",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/b"), rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			want: []string{
				"create a.example.com A 1.1.1.1 {resource=svc/a}",
				"conflict a.example.com A winner=svc/a loser=svc/b: equal target sets; tie broken by resource name, then TTL",
			},
		},
		{
			desc:    "exact duplicates from one resource are not a conflict",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a"), rec("a.example.com", "A", "1.1.1.1").from("svc/a")},
			want:    []string{"create a.example.com A 1.1.1.1 {resource=svc/a}"},
		},
		{
			desc:    "update keeps the resource that holds the name even when it is not the smallest",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a"), rec("a.example.com", "A", "1.1.1.8").from("svc/b")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.9").owned(testOwner).from("svc/b")},
			want: []string{
				"update a.example.com A 1.1.1.9 {owner=me resource=svc/b} -> a.example.com A 1.1.1.8 {owner=me resource=svc/b}",
				"conflict a.example.com A winner=svc/b loser=svc/a: name already held by svc/b",
			},
		},
		{
			desc:    "holder unchanged: no update, the newcomer is still reported",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a"), rec("a.example.com", "A", "1.1.1.9").from("svc/b")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.9").owned(testOwner).from("svc/b")},
			want:    []string{"conflict a.example.com A winner=svc/b loser=svc/a: name already held by svc/b"},
		},
		{
			desc:    "holder gone: update takes the smallest candidate",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.3").from("svc/a"), rec("a.example.com", "A", "1.1.1.2").from("svc/b")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.9").owned(testOwner).from("svc/gone")},
			want: []string{
				"update a.example.com A 1.1.1.9 {owner=me resource=svc/gone} -> a.example.com A 1.1.1.2 {owner=me resource=svc/b}",
				"conflict a.example.com A winner=svc/b loser=svc/a: candidate with the smaller target set wins",
			},
		},
		{
			desc:    "CNAME candidates compare lexically",
			desired: []recBuilder{rec("a.example.com", "CNAME", "lb2.example.net").from("ingress/x/a"), rec("a.example.com", "CNAME", "lb1.example.net").from("ingress/x/b")},
			want: []string{
				"create a.example.com CNAME lb1.example.net {resource=ingress/x/b}",
				"conflict a.example.com CNAME winner=ingress/x/b loser=ingress/x/a: candidate with the smaller target set wins",
			},
		},
		{
			desc:    "a conflict is reported even when the winner is blocked by another owner",
			desired: []recBuilder{rec("a.example.com", "A", "1.1.1.1").from("svc/a"), rec("a.example.com", "A", "1.1.1.2").from("svc/b")},
			current: []recBuilder{rec("a.example.com", "A", "1.1.1.9").owned("other")},
			want: []string{
				"conflict a.example.com A winner=svc/a loser=svc/b: candidate with the smaller target set wins",
				`mismatch UPDATE a.example.com A owner=me foreign="other" resource=svc/a`,
			},
		},
	})
}

func TestPolicies(t *testing.T) {
	desired := []recBuilder{
		rec("new.example.com", "A", "1.1.1.1").from("svc/a"),
		rec("changed.example.com", "A", "1.1.1.2").from("svc/a"),
		rec("theirs.example.com", "A", "1.1.1.2").from("svc/a"),
	}
	current := []recBuilder{
		rec("changed.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a"),
		rec("gone.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a"),
		rec("theirs.example.com", "A", "1.1.1.1").owned("other"),
	}
	create := "create new.example.com A 1.1.1.1 {resource=svc/a}"
	update := "update changed.example.com A 1.1.1.1 {owner=me resource=svc/a} -> changed.example.com A 1.1.1.2 {owner=me resource=svc/a}"
	del := "delete gone.example.com A 1.1.1.1 {owner=me resource=svc/a}"
	mismatch := `mismatch UPDATE theirs.example.com A owner=me foreign="other" resource=svc/a`
	runPlanCases(t, []planCase{
		{desc: "sync", policy: PolicySync, desired: desired, current: current, want: []string{create, update, del, mismatch}},
		{desc: "upsert-only drops deletes", policy: PolicyUpsertOnly, desired: desired, current: current, want: []string{create, update, mismatch}},
		// The policy comes before the owner filter: a forbidden update is not an owner mismatch.
		{desc: "create-only drops updates and deletes", policy: PolicyCreateOnly, desired: desired, current: current, want: []string{create}},
		{desc: "an unknown policy behaves as create-only", policy: Policy("yolo"), desired: desired, current: current, want: []string{create}},
	})
}

func TestZeroPolicyOnlyCreates(t *testing.T) {
	res := Calculate(Input{
		Desired: eps(rec("new.example.com", "A", "1.1.1.1")),
		Current: eps(rec("gone.example.com", "A", "1.1.1.1").owned(testOwner)),
		OwnerID: testOwner,
	})
	if got := summary(res); !slices.Equal(got, []string{"create new.example.com A 1.1.1.1"}) {
		t.Fatalf("zero policy: %v", got)
	}
}

func TestFilters(t *testing.T) {
	filter, err := NewDomainFilter([]string{"example.com"}, nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	desired := eps(
		rec("in.example.com", "A", "1.1.1.1"),
		rec("badexample.com", "A", "1.1.1.1"),
		rec("in.example.com", "AAAA", "2001:db8::1"),
	)
	current := eps(
		rec("old.example.com", "A", "1.1.1.1").owned(testOwner),
		rec("old.example.org", "A", "1.1.1.1").owned(testOwner),
		rec("a-old.example.com", "TXT", `"heritage=external-dns,external-dns/owner=me"`).owned(testOwner),
		rec("mx.example.com", "MX", "10 mail.example.com").owned(testOwner),
	)
	tests := []struct {
		desc              string
		managed, excluded []string
		want              []string
	}{
		{
			desc: "default types: A, AAAA, CNAME; TXT and MX untouched; names outside the filter untouched",
			want: []string{
				"create in.example.com A 1.1.1.1",
				"create in.example.com AAAA 2001:db8::1",
				"delete old.example.com A 1.1.1.1 {owner=me}",
			},
		},
		{
			desc:     "excluded AAAA",
			excluded: []string{"AAAA"},
			want:     []string{"create in.example.com A 1.1.1.1", "delete old.example.com A 1.1.1.1 {owner=me}"},
		},
		{
			desc:    "explicit managed types",
			managed: []string{"MX", "TXT"},
			want: []string{
				`delete a-old.example.com TXT "heritage=external-dns,external-dns/owner=me" {owner=me}`,
				"delete mx.example.com MX 10 mail.example.com {owner=me}",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			res := Calculate(Input{
				Desired: desired, Current: current, OwnerID: testOwner, Policy: PolicySync,
				DomainFilter: filter, ManagedRecordTypes: tc.managed, ExcludeRecordTypes: tc.excluded,
			})
			if got := summary(res); !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// With the noop registry the owner id is "": records without an owner label count as ours, records
// with any owner label still do not.
func TestEmptyOwnerID(t *testing.T) {
	res := Calculate(Input{
		Current: eps(rec("a.example.com", "A", "1.1.1.1"), rec("b.example.com", "A", "1.1.1.1").owned("other")),
		Policy:  PolicySync,
	})
	if got := summary(res); !slices.Equal(got, []string{"delete a.example.com A 1.1.1.1"}) {
		t.Fatalf("got %q", got)
	}
}

func TestDuplicateCurrentRecordsPreferOurs(t *testing.T) {
	res := Calculate(Input{
		Desired: eps(rec("a.example.com", "A", "1.1.1.2").from("svc/a")),
		Current: eps(rec("a.example.com", "A", "1.1.1.1").owned("other"), rec("a.example.com", "A", "1.1.1.0").owned(testOwner)),
		OwnerID: testOwner, Policy: PolicySync,
	})
	want := []string{"update a.example.com A 1.1.1.0 {owner=me} -> a.example.com A 1.1.1.2 {owner=me resource=svc/a}"}
	if got := summary(res); !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

func TestCalculateIsPureAndDeterministic(t *testing.T) {
	desired := eps(
		rec("a.example.com", "A", "1.1.1.2").from("svc/a"),
		rec("a.example.com", "A", "1.1.1.1").from("svc/b"),
		rec("a.example.com", "CNAME", "lb.example.net").from("ingress/c"),
		rec("b.example.com", "A", "1.1.1.3").ttl(60).from("svc/a"),
		rec("c.example.com", "AAAA", "2001:db8::1").from("svc/b"),
		rec("d.example.com", "A", "1.1.1.1").from("svc/b"),
		rec("d.example.com", "A", "1.1.1.1").from("svc/c"),
	)
	current := eps(
		rec("b.example.com", "A", "1.1.1.4").owned(testOwner).from("svc/a"),
		rec("c.example.com", "A", "1.1.1.4").owned("other"),
		rec("e.example.com", "A", "1.1.1.4").owned(testOwner),
		rec("f.example.com", "A", "1.1.1.4").owned(testOwner),
	)
	snapshot := func(in []*endpoint.Endpoint) []*endpoint.Endpoint {
		out := make([]*endpoint.Endpoint, len(in))
		for i, e := range in {
			out[i] = e.DeepCopy()
		}
		return out
	}
	desiredBefore, currentBefore := snapshot(desired), snapshot(current)
	first := Calculate(Input{Desired: desired, Current: current, OwnerID: testOwner, Policy: PolicySync})
	if !reflect.DeepEqual(desired, desiredBefore) || !reflect.DeepEqual(current, currentBefore) {
		t.Fatal("Calculate modified its input")
	}
	for _, c := range first.Changes.Create {
		if slices.Contains(desired, c) {
			t.Fatalf("Create %s aliases an input endpoint; the registry would stamp the owner on the source's copy", c)
		}
	}
	for _, u := range first.Changes.UpdateNew {
		if slices.Contains(desired, u) {
			t.Fatalf("UpdateNew %s aliases an input endpoint", u)
		}
	}
	want := summary(first)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		d, c := snapshot(desired), snapshot(current)
		rng.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
		rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		got := summary(Calculate(Input{Desired: d, Current: c, OwnerID: testOwner, Policy: PolicySync}))
		if !slices.Equal(got, want) {
			t.Fatalf("shuffled input changed the plan:\n got  %q\n want %q", got, want)
		}
	}
}

func TestEmptyInput(t *testing.T) {
	res := Calculate(Input{})
	if res.Changes == nil || res.Changes.HasChanges() || len(res.Conflicts) != 0 || len(res.OwnerMismatches) != 0 {
		t.Fatalf("empty input: %+v", res)
	}
}

func TestDuplicateCurrentRecordsPreferOneInSync(t *testing.T) {
	res := Calculate(Input{
		Desired: eps(rec("a.example.com", "A", "1.1.1.9").from("svc/a")),
		Current: eps(
			rec("a.example.com", "A", "1.1.1.1").owned(testOwner).from("svc/a"),
			rec("A.example.com", "A", "1.1.1.9").owned(testOwner).from("svc/a"),
		),
		OwnerID: testOwner, Policy: PolicySync,
	})
	if got := summary(res); len(got) != 0 {
		t.Fatalf("a duplicate already in sync must be kept as is, got %q", got)
	}
}
