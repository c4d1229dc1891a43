package crd

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
)

// partialProvider lists one zone and reports another as unreadable; it has a zone probe.
type partialProvider struct {
	*inmemory.Provider
	checked time.Duration
}

func (p *partialProvider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	eps, err := p.Provider.Records(ctx)
	if err != nil {
		return nil, err
	}
	return eps, &provider.UnreadableZonesError{Zones: []provider.UnreadableZone{{Name: "b.test", ID: "Z2", Err: errors.New("AccessDenied")}}, Readable: []string{"a.test"}}
}

func (p *partialProvider) CheckZones(_ context.Context, relist time.Duration) ([]string, error) {
	p.checked = relist
	return []string{"b.test"}, nil
}

// Issues 16 and 11 with --registry=crd: the zone probe reaches the provider, and a listing that left a
// zone out gives the other zones' records with the error naming it, so the controller plans those.
func TestRegistryForwardsZoneProbeAndPartialListing(t *testing.T) {
	c := startCluster(t)
	mem := inmemory.New("a.test")
	p := &partialProvider{Provider: mem}
	r := c.registry(t, p, "cluster-a", nil)
	stale, err := r.CheckZones(context.Background(), 3*time.Minute)
	if err != nil || fmt.Sprint(stale) != "[b.test]" || p.checked != 3*time.Minute {
		t.Fatalf("CheckZones = %v, %v (relist %s)", stale, err, p.checked)
	}
	web := labelled("web.a.test", "service/default/web", "192.0.2.1")
	if err := r.ApplyChanges(context.Background(), &plan.Changes{Create: []*endpoint.Endpoint{web}}); err != nil {
		t.Fatal(err)
	}
	eps, err := r.Records(context.Background())
	ue, ok := provider.AsUnreadableZones(err)
	if !ok || fmt.Sprint(ue.Names()) != "[b.test]" || find(eps, "web.a.test") == nil || find(eps, "web.a.test").Owner() != "cluster-a" {
		t.Fatalf("Records = %v, %v; want web.a.test owned and b.test named", eps, err)
	}
}
