package txt

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// The cache's entries share one empty label map among the listed records that have none (newState),
// which is safe only while no endpoint the registry hands out or sends to the provider carries it:
// whoever gets it may write to it. Records, SharedRecordsWithGeneration, RecordsNamed and the record
// sets ApplyChanges sends (the stored TXT as UpdateOld and Delete among them) must all carry other
// maps.
func TestNoEntryLabelMapLeavesTheCache(t *testing.T) {
	mem, rec := newZone()
	own := func(resource string) string {
		return `"heritage=external-dns,external-dns/owner=me,external-dns/resource=` + resource + `"`
	}
	seed(t, mem,
		endpoint.New("web.example.com", endpoint.RecordTypeA, "192.0.2.1"), txtRecord("a-web.example.com", own("ingress/default/web")),
		endpoint.New("api.example.com", endpoint.RecordTypeA, "192.0.2.2"), txtRecord("a-api.example.com", own("ingress/default/api")),
		endpoint.New("bare.example.com", endpoint.RecordTypeA, "192.0.2.3"), txtRecord("note.example.com", `"hello"`))
	r := mustNew(t, rec, Config{OwnerID: "me", CacheInterval: time.Hour})
	ctx := context.Background()
	copies := mustRecords(t, r)

	cached := map[uintptr]string{}
	r.mu.RLock()
	for en := range r.state.all() {
		if en.ep != nil && en.ep != en.folded && en.ep.Labels != nil && len(en.ep.Labels) == 0 { // not the memo's record (handed out by design)
			cached[reflect.ValueOf(en.ep.Labels).Pointer()] = en.ep.DNSName + " " + en.ep.RecordType
		}
	}
	r.mu.RUnlock()
	check := func(what string, eps []*endpoint.Endpoint) {
		t.Helper()
		for _, e := range eps {
			if e.Labels == nil {
				continue
			}
			if held, ok := cached[reflect.ValueOf(e.Labels).Pointer()]; ok {
				t.Errorf("%s: %s %s carries the empty label map of the cache's entry %s", what, e.DNSName, e.RecordType, held)
			}
		}
	}
	check("Records", copies)
	shared, _, _, err := r.SharedRecordsWithGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("SharedRecordsWithGeneration", shared)
	named, _, _, ok := r.RecordsNamed([]string{"web.example.com", "api.example.com", "bare.example.com", "note.example.com"})
	if !ok || len(named) != 4 {
		t.Fatalf("RecordsNamed: %d records, ok %v", len(named), ok)
	}
	check("RecordsNamed", named)

	web, api := find(copies, "web.example.com", endpoint.RecordTypeA), find(copies, "api.example.com", endpoint.RecordTypeA)
	nu := web.DeepCopy()
	nu.Labels[endpoint.ResourceLabelKey] = "ingress/default/web2" // the TXT is rewritten: the stored one is UpdateOld
	if err := r.ApplyChanges(ctx, &plan.Changes{UpdateOld: []*endpoint.Endpoint{web}, UpdateNew: []*endpoint.Endpoint{nu},
		Delete: []*endpoint.Endpoint{api}}); err != nil {
		t.Fatal(err)
	}
	sent := rec.last()
	if sent == nil || len(sent.UpdateOld) != 2 || len(sent.Delete) != 2 {
		t.Fatalf("sent %+v, want the A and its TXT updated and deleted", sent)
	}
	check("UpdateOld sent", sent.UpdateOld)
	check("Delete sent", sent.Delete)
}
