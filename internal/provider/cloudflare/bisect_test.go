package cloudflare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// hosts returns n A records host0..host(n-1).example.com.
func hosts(n int) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for i := 0; i < n; i++ {
		out = append(out, ep(fmt.Sprintf("host%d.example.com", i), "A", 300, fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)))
	}
	return out
}

// A batch the API refuses because of one record is bisected: that record's change is rejected with
// the API's reason, every other record of the same reconcile is written, and the calls stay near
// 2·log2(n) instead of one per record (external-dns replays the whole chunk record by record).
func TestRefusedBatchIsBisectedToTheRecord(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	if err := emu.FailBatches(cloudflareemu.BatchFailure{RecordName: "host77.example.com", IncludeSingle: true,
		Code: 9005, Message: "Content for A record is invalid."}); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, base, Config{BatchChangeSize: 200})
	want := hosts(200)
	emu.ClearCalls()
	err := adjustAndApply(t, p, &plan.Changes{Create: want})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 1 || ae.Rejected[0].Endpoint.DNSName != "host77.example.com" ||
		ae.Rejected[0].Action != provider.ActionCreate || !strings.Contains(ae.Rejected[0].Err.Error(), "9005 Content for A record is invalid.") {
		t.Fatalf("want host77 rejected with the API's reason, got %v", err)
	}
	if got := len(dumpZone(emu, "example.com")); got != 199 {
		t.Fatalf("%d records written, want the 199 others", got)
	}
	c := emu.Counters()
	calls := c.Calls[cloudflareemu.OpRecordsBatch] + c.Calls[cloudflareemu.OpRecordsNew]
	// One refused record among 200: 1 + 2 per level for log2(200) < 8 levels.
	if calls > 1+2*8 {
		t.Errorf("%d calls (%v) to isolate one record among 200", calls, c.Calls)
	}
	t.Logf("isolating 1 refused record among 200: %d batch + %d single calls", c.Calls[cloudflareemu.OpRecordsBatch], c.Calls[cloudflareemu.OpRecordsNew])

	// The record's index is up to date: deleting every record written needs no listing and works.
	emu.ClearFaults()
	if err := p.ApplyChanges(testCtx(t), &plan.Changes{Delete: append(want[:77:77], want[78:]...)}); err != nil {
		t.Fatal(err)
	}
	if got := dumpZone(emu, "example.com"); len(got) != 0 {
		t.Fatalf("left after deleting all: %+v", got)
	}
	if n := emu.Counters().Calls[cloudflareemu.OpRecordsList]; n != 1 {
		t.Errorf("%d listings; the first ApplyChanges lists once, the rest is written through", n)
	}
}

// When the batch endpoint fails for a record that the record's own endpoint accepts, the record is
// written through it: nothing is rejected.
func TestBatchEndpointFailureFallsBackToSingleRecord(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	if err := emu.FailBatches(cloudflareemu.BatchFailure{RecordName: "host3.example.com"}); err != nil {
		t.Fatal(err)
	}
	p := newTestProvider(t, base, Config{})
	if err := adjustAndApply(t, p, &plan.Changes{Create: hosts(8)}); err != nil {
		t.Fatal(err)
	}
	if got := len(dumpZone(emu, "example.com")); got != 8 {
		t.Fatalf("%d records, want 8", got)
	}
}

// Several refused changes of several kinds in one reconcile: each is reported once, the others
// (including deletes and updates in the same batch) apply.
func TestSeveralRefusalsInOneReconcile(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"})
	p := newTestProvider(t, base, Config{BatchChangeSize: 7})
	initial := hosts(20)
	if err := adjustAndApply(t, p, &plan.Changes{Create: initial}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"host2.example.com", "new5.example.com"} {
		if err := emu.FailBatches(cloudflareemu.BatchFailure{RecordName: name, IncludeSingle: true}); err != nil {
			t.Fatal(err)
		}
	}
	var creates []*endpoint.Endpoint
	for i := 0; i < 10; i++ {
		creates = append(creates, ep(fmt.Sprintf("new%d.example.com", i), "A", 300, "10.9.0.1"))
	}
	upd := ep("host2.example.com", "A", 300, "10.0.0.99")
	upd4 := ep("host4.example.com", "A", 600, "10.0.0.5")
	err := adjustAndApply(t, p, &plan.Changes{Create: creates, Delete: initial[10:],
		UpdateOld: []*endpoint.Endpoint{initial[2], initial[4]}, UpdateNew: []*endpoint.Endpoint{upd, upd4}})
	ae, ok := provider.AsApplyError(err)
	if !ok || len(ae.Rejected) != 2 {
		t.Fatalf("want 2 rejections, got %v", err)
	}
	got := map[string]bool{}
	for _, r := range ae.Rejected {
		got[string(r.Action)+" "+r.Endpoint.DNSName] = true
	}
	if !got["UPDATE host2.example.com"] || !got["CREATE new5.example.com"] {
		t.Fatalf("rejected: %v", got)
	}
	// 10 kept (host2 unchanged, host4 updated) + 9 new.
	recs := dumpZone(emu, "example.com")
	if len(recs) != 19 {
		t.Fatalf("%d records, want 19: %+v", len(recs), recs)
	}
	for _, r := range recs {
		if r.Name == "host4.example.com" && r.TTL != 600 {
			t.Errorf("host4 not updated: %+v", r)
		}
		if r.Name == "host2.example.com" && r.Content != "10.0.0.3" {
			t.Errorf("host2 changed although refused: %+v", r)
		}
	}
}
