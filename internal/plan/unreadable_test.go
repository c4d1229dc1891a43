package plan

import (
	"testing"
)

// A source that cannot read its objects (CRD missing, RBAC) reports them unreadable: the records they
// own stay, every other record is planned as usual.
func TestUnreadableSourcesKeepTheirRecords(t *testing.T) {
	current := eps(
		rec("gw.example.com", "A", "1.1.1.1").owned(testOwner).from("httproute/default/web"),
		rec("db.example.com", "A", "10.0.0.1").owned(testOwner).from("service/default/db"),
		rec("old.example.com", "A", "10.0.0.2").owned(testOwner).from("service/default/old"),
		rec("ing.example.com", "A", "10.0.0.3").owned(testOwner).from("ingress/default/gone"),
	)
	res := Calculate(Input{Current: current, OwnerID: testOwner, Policy: PolicySync,
		Unreadable: []string{"httproute", "service/default/db"}})
	var deleted []string
	for _, d := range res.Changes.Delete {
		deleted = append(deleted, d.DNSName)
	}
	if len(deleted) != 2 || deleted[0] != "ing.example.com" || deleted[1] != "old.example.com" {
		t.Errorf("deleted %v, want ing.example.com and old.example.com only", deleted)
	}
	held := map[string]bool{}
	for _, h := range res.HeldByPolicy {
		if h.Action != ActionDelete || !h.Unreadable {
			t.Errorf("held %+v: want an unreadable delete", h)
		}
		held[h.Key.DNSName] = true
	}
	if !held["gw.example.com"] || !held["db.example.com"] || len(held) != 2 {
		t.Errorf("held %v, want gw and db", held)
	}
	// Desired records of an unreadable kind's name from another source still update it.
	res = Calculate(Input{Current: current, OwnerID: testOwner, Policy: PolicySync, Unreadable: []string{"httproute"},
		Desired: eps(rec("gw.example.com", "A", "2.2.2.2").from("ingress/default/web"))})
	if len(res.Changes.UpdateNew) != 1 || res.Changes.UpdateNew[0].Targets[0] != "2.2.2.2" {
		t.Errorf("updates %v, want gw.example.com to 2.2.2.2", res.Changes.UpdateNew)
	}
}
