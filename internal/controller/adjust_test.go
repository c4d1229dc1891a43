package controller

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider/inmemory"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
)

// aliasingProvider stores a CNAME to a load balancer as an A record with alias=true, the way Route 53
// does, and says so through AdjustEndpoints.
type aliasingProvider struct{ *inmemory.Provider }

func (aliasingProvider) AdjustEndpoints(desired []*endpoint.Endpoint) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, len(desired))
	for i, e := range desired {
		out[i] = e.DeepCopy()
		if e.RecordType == endpoint.RecordTypeCNAME {
			out[i].RecordType = endpoint.RecordTypeA
			out[i].SetProviderSpecific("alias", "true")
		}
	}
	return out
}

func TestProviderAdjustmentReachesThePlan(t *testing.T) {
	src := &listSource{}
	src.set(nil, endpoint.New("www.example.com", endpoint.RecordTypeCNAME, "lb-1.elb.amazonaws.com").
		WithLabel(endpoint.ResourceLabelKey, "ingress/default/web"))
	p := aliasingProvider{inmemory.New("example.com")}
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c := New(src, reg, Settings{OwnerID: "test", Policy: plan.PolicySync}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	out, err := c.RunOnce(context.Background())
	if err != nil || len(out.Changes.Create) != 1 || out.Changes.Create[0].RecordType != endpoint.RecordTypeA {
		t.Fatalf("first run: %v %v, want one A alias", out.Changes.Create, err)
	}
	out, err = c.RunOnce(context.Background())
	if err != nil || out.Changes.HasChanges() {
		t.Fatalf("second run churns: %+v %v", out.Changes, err)
	}
}
