package cloudflare

import (
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/cloudflareemu"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// zonekeeper plan's cost line: 2,000 hostnames with their TXTs (4,000 records) are 20 batches of 200
// in one zone; the estimate sends no request once the zone is cached, and the sync then costs exactly
// the batches estimated.
func TestEstimateCallsIsWhatTheSyncCosts(t *testing.T) {
	emu, base := emulator(t, cloudflareemu.Options{})
	seedZones(t, emu, cloudflareemu.SeedZone{Name: "example.com"}, cloudflareemu.SeedZone{Name: "example.org"})
	p := newTestProvider(t, base, Config{})
	ctx := testCtx(t)
	if _, err := p.Records(ctx); err != nil {
		t.Fatal(err)
	}
	desired, err := p.AdjustEndpoints(ctx, twoThousand())
	if err != nil {
		t.Fatal(err)
	}
	emu.ClearCalls()
	est, err := p.EstimateCalls(ctx, &plan.Changes{Create: desired})
	if err != nil {
		t.Fatal(err)
	}
	if est.Calls != 20 || est.Zones != 1 || est.Call != "dns_records.batch" {
		t.Fatalf("estimate %+v, want 20 dns_records.batch in 1 zone", est)
	}
	if n := emu.Counters().Total; n != 0 {
		t.Fatalf("the estimate sent %d requests", n)
	}
	if err := p.ApplyChanges(ctx, &plan.Changes{Create: desired}); err != nil {
		t.Fatal(err)
	}
	if n := emu.Counters().Calls[cloudflareemu.OpRecordsBatch]; n != est.Calls {
		t.Errorf("the sync cost %d batches, the estimate said %d", n, est.Calls)
	}
}
