package google

import (
	"fmt"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/googlednsemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// zonekeeper plan's cost line for Cloud DNS: the Changes ApplyChanges sends, packed per zone in
// batches of --google-batch-change-size, foreseen without a call to the API; the apply then sends
// exactly that many (counted by the emulator).
func TestEstimateCallsIsWhatTheApplySends(t *testing.T) {
	emu, base, key := emulator(t, googlednsemu.Options{})
	seedZones(t, emu, googlednsemu.SeedZone{Name: "pub", DNSName: "example.com."}, googlednsemu.SeedZone{Name: "org", DNSName: "example.org."})
	p := newTestProvider(t, base, key, Config{BatchChangeSize: 100})
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	changes := &plan.Changes{}
	for i := range 250 {
		changes.Create = append(changes.Create, ep(fmt.Sprintf("h%d.example.com", i), "A", 300, "192.0.2.1"))
	}
	changes.Create = append(changes.Create, ep("one.example.org", "A", 300, "192.0.2.2"), ep("nowhere.example.net", "A", 300, "192.0.2.3"))
	emu.ClearCalls()
	est, err := p.EstimateCalls(ctx, changes)
	if err != nil {
		t.Fatal(err)
	}
	if c := emu.Counters().Calls; len(c) != 0 {
		t.Fatalf("the estimate called the API: %v", c)
	}
	if est.Calls != 4 || est.Zones != 2 || est.Call != "changes.create" {
		t.Fatalf("estimate %+v, want 4 changes.create (3 batches of at most 100 in example.com, 1 in example.org) in 2 zones", est)
	}
	_ = p.ApplyChanges(ctx, changes) // the name in no zone is rejected
	if got := emu.Counters().Calls[googlednsemu.OpChangesPost]; got != est.Calls {
		t.Fatalf("the apply sent %d Changes, the estimate said %d", got, est.Calls)
	}
	// Sets already as wanted cost nothing.
	if est, err := p.EstimateCalls(ctx, &plan.Changes{Create: []*endpoint.Endpoint{ep("h1.example.com", "A", 300, "192.0.2.1")}}); err != nil || est.Calls != 0 {
		t.Fatalf("a set already there: %+v, %v; want no call", est, err)
	}
}
