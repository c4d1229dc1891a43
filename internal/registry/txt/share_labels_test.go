package txt

import (
	"context"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// TestSharedLabelMapsStayAsDecoded: ownership TXTs with the same value share one label map
// (state.sharedLabels), which labels every record they own and is handed out without copies; so
// nothing may write to it. The cache is built from a listing (owner-only TXTs of several names, the
// A and AAAA TXTs of a dual-stack name, another owner's TXTs) and from writes; the records' maps must
// be shared, and every map handed out must keep what it held through Records, RecordsNamed and
// writes that rewrite, delete and create TXTs with the same values.
func TestSharedLabelMapsStayAsDecoded(t *testing.T) {
	const (
		ownerOnly = `"heritage=external-dns,external-dns/owner=me"`
		dual      = `"heritage=external-dns,external-dns/owner=me,external-dns/resource=ingress/default/ds"`
		theirs    = `"heritage=external-dns,external-dns/owner=other,external-dns/resource=crd/x/y"`
	)
	mem, _ := newZone()
	seed(t, mem,
		endpoint.New("n1.example.com", endpoint.RecordTypeA, "192.0.2.1"), txtRecord("a-n1.example.com", ownerOnly),
		endpoint.New("n2.example.com", endpoint.RecordTypeA, "192.0.2.2"), txtRecord("a-n2.example.com", ownerOnly),
		endpoint.New("n3.example.com", endpoint.RecordTypeA, "192.0.2.3"), txtRecord("a-n3.example.com", ownerOnly),
		endpoint.New("ds.example.com", endpoint.RecordTypeA, "192.0.2.4"), txtRecord("a-ds.example.com", dual),
		endpoint.New("ds.example.com", endpoint.RecordTypeAAAA, "2001:db8::4"), txtRecord("aaaa-ds.example.com", dual),
		endpoint.New("t1.example.com", endpoint.RecordTypeA, "192.0.2.5"), txtRecord("a-t1.example.com", theirs),
		endpoint.New("t2.example.com", endpoint.RecordTypeA, "192.0.2.6"), txtRecord("a-t2.example.com", theirs))
	r := mustNew(t, mem, Config{OwnerID: "me", CacheInterval: time.Hour})
	ctx := context.Background()

	type handedOut struct {
		labels endpoint.Labels
		was    map[string]string
		by     string
	}
	var all []handedOut
	keep := func(what string, eps []*endpoint.Endpoint) {
		for _, e := range eps {
			all = append(all, handedOut{e.Labels, maps.Clone(e.Labels), what + " " + e.DNSName + " " + e.RecordType})
		}
	}
	check := func(after string) {
		t.Helper()
		for _, h := range all {
			if !maps.Equal(h.labels, h.was) {
				t.Errorf("after %s: the labels of %s changed to %v, were %v", after, h.by, h.labels, h.was)
			}
		}
	}
	shared := func() []*endpoint.Endpoint {
		t.Helper()
		eps, _, _, err := r.SharedRecordsWithGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return eps
	}
	sameMap := func(eps []*endpoint.Endpoint, a, aType, b, bType string) {
		t.Helper()
		ea, eb := find(eps, a, aType), find(eps, b, bType)
		if ea == nil || eb == nil || reflect.ValueOf(ea.Labels).Pointer() != reflect.ValueOf(eb.Labels).Pointer() {
			t.Errorf("%s %s and %s %s: not labelled with one shared map", a, aType, b, bType)
		}
	}

	eps := shared()
	keep("listed", eps)
	sameMap(eps, "n1.example.com", "A", "n2.example.com", "A")
	sameMap(eps, "n1.example.com", "A", "n3.example.com", "A")
	sameMap(eps, "ds.example.com", "A", "ds.example.com", "AAAA")
	sameMap(eps, "t1.example.com", "A", "t2.example.com", "A")
	if e := find(eps, "n1.example.com", "A"); e == nil || e.Owner() != "me" {
		t.Fatalf("n1: %v, want it owned by me", e)
	}
	check("the first fold")

	copies := mustRecords(t, r) // copies: the caller may write to them
	for _, e := range copies {
		e.Labels[endpoint.ResourceLabelKey] = "written/by/the/caller"
	}
	check("writing to Records' copies")
	named, _, _, ok := r.RecordsNamed([]string{"n1.example.com", "ds.example.com"})
	if !ok {
		t.Fatal("RecordsNamed: not answered from the cache")
	}
	keep("named", named)

	n1, n2, dsA := find(eps, "n1.example.com", "A"), find(eps, "n2.example.com", "A"), find(eps, "ds.example.com", "A")
	nu := n1.DeepCopy()
	nu.Labels[endpoint.ResourceLabelKey] = "ingress/default/n1" // n1's TXT is rewritten
	dsNew := dsA.DeepCopy()
	dsNew.Targets = endpoint.Targets{"192.0.2.40"}
	n4 := endpoint.New("n4.example.com", endpoint.RecordTypeA, "192.0.2.7")
	n5 := endpoint.New("n5.example.com", endpoint.RecordTypeA, "192.0.2.8")
	if err := r.ApplyChanges(ctx, &plan.Changes{
		UpdateOld: []*endpoint.Endpoint{n1, dsA}, UpdateNew: []*endpoint.Endpoint{nu, dsNew},
		Delete: []*endpoint.Endpoint{n2}, Create: []*endpoint.Endpoint{n4, n5}}); err != nil {
		t.Fatal(err)
	}
	check("writes")
	eps = shared()
	keep("after writes", eps)
	sameMap(eps, "n4.example.com", "A", "n5.example.com", "A") // written in one batch with the same value
	sameMap(eps, "ds.example.com", "A", "ds.example.com", "AAAA")
	if e := find(eps, "n1.example.com", "A"); e == nil || e.Labels[endpoint.ResourceLabelKey] != "ingress/default/n1" {
		t.Errorf("n1 after its update: %v", e)
	}
	if e := find(eps, "n3.example.com", "A"); e == nil || len(e.Labels) != 1 || e.Owner() != "me" {
		t.Errorf("n3, whose map n1 and n2 shared: %v", e)
	}
	r.Invalidate() // listed again: the maps are decoded and shared anew
	keep("relisted", shared())
	check("a relisting")
}
