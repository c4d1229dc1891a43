package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

func TestParsePolicy(t *testing.T) {
	for _, s := range []string{"sync", "upsert-only", "create-only"} {
		p, err := ParsePolicy(s)
		if err != nil || string(p) != s {
			t.Errorf("ParsePolicy(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Sync", "upsert", "delete-all"} {
		_, err := ParsePolicy(s)
		if err == nil {
			t.Errorf("ParsePolicy(%q) accepted", s)
			continue
		}
		if !strings.Contains(err.Error(), "upsert-only") {
			t.Errorf("ParsePolicy(%q) error %q does not list the valid policies", s, err)
		}
	}
}

// Changes the policy forbids on our own records are reported as held, so users see why a record
// stays; foreign records are never in the list.
func TestHeldByPolicy(t *testing.T) {
	own := func(name, target, resource string) *endpoint.Endpoint {
		return endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, target).
			WithLabel(endpoint.OwnerLabelKey, "me").WithLabel(endpoint.ResourceLabelKey, resource)
	}
	current := []*endpoint.Endpoint{
		own("gone.example.com", "192.0.2.1", "ingress/default/gone"),
		own("moved.example.com", "192.0.2.2", "ingress/default/moved"),
		endpoint.NewWithTTL("theirs.example.com", endpoint.RecordTypeA, 300, "192.0.2.3").WithLabel(endpoint.OwnerLabelKey, "other"),
	}
	desired := []*endpoint.Endpoint{
		endpoint.NewWithTTL("moved.example.com", endpoint.RecordTypeA, 300, "192.0.2.20").WithLabel(endpoint.ResourceLabelKey, "ingress/default/moved"),
	}
	describe := func(hs []HeldChange) string {
		var out []string
		for _, h := range hs {
			out = append(out, fmt.Sprintf("%s %s %s", h.Action, h.Key.DNSName, h.Resource))
		}
		return strings.Join(out, "; ")
	}
	for policy, want := range map[Policy]string{
		PolicySync:       "",
		PolicyUpsertOnly: "DELETE gone.example.com ingress/default/gone",
		PolicyCreateOnly: "DELETE gone.example.com ingress/default/gone; UPDATE moved.example.com ingress/default/moved",
	} {
		r := Calculate(Input{Desired: desired, Current: current, OwnerID: "me", Policy: policy})
		if got := describe(r.HeldByPolicy); got != want {
			t.Errorf("%s: held %q, want %q", policy, got, want)
		}
	}
}

// --migrate-from-txt-owner: the old owner's records count as ours; each is updated once, even in
// sync, so that its ownership record is rewritten; a third owner's records stay untouched.
func TestMigrateFromOldOwner(t *testing.T) {
	rec := func(name, target, owner string) *endpoint.Endpoint {
		return endpoint.NewWithTTL(name, endpoint.RecordTypeA, 300, target).WithLabel(endpoint.OwnerLabelKey, owner).
			WithLabel(endpoint.ResourceLabelKey, "ingress/default/"+strings.Split(name, ".")[0])
	}
	current := []*endpoint.Endpoint{
		rec("insync.example.com", "192.0.2.1", "old"),
		rec("stale.example.com", "192.0.2.2", "old"),
		rec("gone.example.com", "192.0.2.3", "old"),
		rec("third.example.com", "192.0.2.4", "someone"),
		rec("mine.example.com", "192.0.2.5", "new"),
	}
	desired := []*endpoint.Endpoint{
		endpoint.NewWithTTL("insync.example.com", endpoint.RecordTypeA, 300, "192.0.2.1"),
		endpoint.NewWithTTL("stale.example.com", endpoint.RecordTypeA, 300, "192.0.2.20"),
		endpoint.NewWithTTL("third.example.com", endpoint.RecordTypeA, 300, "192.0.2.40"),
		endpoint.NewWithTTL("mine.example.com", endpoint.RecordTypeA, 300, "192.0.2.5"),
	}
	r := Calculate(Input{Desired: desired, Current: current, OwnerID: "new", OldOwnerID: "old", Policy: PolicySync})
	var got []string
	for _, e := range r.Changes.UpdateNew {
		got = append(got, "UPDATE "+e.DNSName)
	}
	for _, e := range r.Changes.Delete {
		got = append(got, "DELETE "+e.DNSName)
	}
	if want := "UPDATE insync.example.com, UPDATE stale.example.com, DELETE gone.example.com"; strings.Join(got, ", ") != want {
		t.Errorf("changes %v, want %s", got, want)
	}
	if len(r.OwnerMismatches) != 1 || r.OwnerMismatches[0].Key.DNSName != "third.example.com" {
		t.Errorf("mismatches %+v, want the third owner's record", r.OwnerMismatches)
	}
	// Under create-only the rewrites are held, and an owner-only one says so.
	r = Calculate(Input{Desired: desired, Current: current, OwnerID: "new", OldOwnerID: "old", Policy: PolicyCreateOnly})
	var held []string
	for _, h := range r.HeldByPolicy {
		held = append(held, fmt.Sprintf("%s %s migration=%v", h.Action, h.Key.DNSName, h.OwnerMigration))
	}
	if want := "DELETE gone.example.com migration=false; UPDATE insync.example.com migration=true; UPDATE stale.example.com migration=false"; strings.Join(held, "; ") != want {
		t.Errorf("held %v, want %s", held, want)
	}
	// Without the flag, the old owner's records are someone else's.
	r = Calculate(Input{Desired: desired, Current: current, OwnerID: "new", Policy: PolicySync})
	if r.Changes.HasChanges() {
		t.Errorf("without migration: %+v", r.Changes)
	}
}
