package azure

import (
	"context"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

var _ provider.CallEstimator = (*Provider)(nil)

// EstimateCalls implements provider.CallEstimator (zonekeeper plan): the API has no batch, so each
// deleted, created or updated record set is one call (RecordSets_Delete or RecordSets_CreateOrUpdate),
// except those ApplyChanges refuses without a call (no zone holds the name, or a virtual network link
// registered the set). It lists the zones only when none are cached.
func (p *Provider) EstimateCalls(ctx context.Context, changes *plan.Changes) (provider.CallEstimate, error) {
	var est provider.CallEstimate
	if changes == nil || !changes.HasChanges() {
		return est, nil
	}
	p.opMu.Lock()
	defer p.opMu.Unlock()
	zones, err := p.writeZones(ctx)
	if err != nil {
		return est, err
	}
	touched := map[string]bool{}
	var calls []string
	count := func(eps []*endpoint.Endpoint, call string) {
		n := 0
		for _, e := range eps {
			if zone, _, err := p.target(zones, e); err == nil {
				touched[zone] = true
				n++
			}
		}
		if n > 0 {
			est.Calls += n
			calls = append(calls, call)
		}
	}
	count(changes.Delete, "RecordSets_Delete")
	count(append(append([]*endpoint.Endpoint{}, changes.Create...), changes.UpdateNew...), "RecordSets_CreateOrUpdate")
	est.Call, est.Zones = strings.Join(calls, ", "), len(touched)
	return est, nil
}
