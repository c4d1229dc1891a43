package controller

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
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

func (aliasingProvider) AdjustEndpoints(_ context.Context, desired []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	out := make([]*endpoint.Endpoint, len(desired))
	for i, e := range desired {
		out[i] = e.DeepCopy()
		if e.RecordType == endpoint.RecordTypeCNAME {
			out[i].RecordType = endpoint.RecordTypeA
			out[i].SetProviderSpecific("alias", "true")
		}
	}
	return out, nil
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

// failingAdjuster cannot be asked (a webhook that is down).
type failingAdjuster struct{ *inmemory.Provider }

func (failingAdjuster) AdjustEndpoints(context.Context, []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return nil, errors.New("webhook unreachable")
}

// A failed adjustment fails the run before anything is written: planning unadjusted endpoints would
// churn or write records in the wrong form.
func TestAdjustmentFailureFailsTheRun(t *testing.T) {
	src := &listSource{}
	src.set(nil, endpoint.New("www.example.com", endpoint.RecordTypeA, "192.0.2.1"))
	p := failingAdjuster{inmemory.New("example.com")}
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c := New(src, reg, Settings{OwnerID: "test", Policy: plan.PolicySync}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := c.RunOnce(context.Background()); err == nil || !strings.Contains(err.Error(), "webhook unreachable") {
		t.Fatalf("RunOnce = %v, want the adjustment error", err)
	}
	if recs, _ := p.Records(context.Background()); len(recs) != 0 {
		t.Errorf("records written despite the failure: %v", recs)
	}
}

// filteringProvider negotiates a filter, as a webhook provider does; until ready it cannot.
type filteringProvider struct {
	*inmemory.Provider
	ready bool
}

func (p *filteringProvider) DomainFilter(context.Context) (plan.DomainFilter, error) {
	if !p.ready {
		return plan.DomainFilter{}, errors.New("webhook not negotiated")
	}
	return plan.NewDomainFilter([]string{"www.example.com"}, nil, "", "")
}

// The provider's filter narrows the flags' filter; while it cannot be had, runs fail and write nothing.
func TestProviderDomainFilterNarrowsThePlan(t *testing.T) {
	src := &listSource{}
	src.set(nil, endpoint.New("www.example.com", endpoint.RecordTypeA, "192.0.2.1"),
		endpoint.New("mail.example.com", endpoint.RecordTypeA, "192.0.2.2"))
	p := &filteringProvider{Provider: inmemory.New("example.com")}
	reg, err := txt.New(p, txt.Config{OwnerID: "test", CacheInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c := New(src, reg, Settings{OwnerID: "test", Policy: plan.PolicySync}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := c.RunOnce(context.Background()); err == nil || !strings.Contains(err.Error(), "not negotiated") {
		t.Fatalf("RunOnce = %v, want the negotiation error", err)
	}
	p.ready = true
	out, err := c.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var created []string
	for _, e := range out.Changes.Create {
		created = append(created, e.DNSName+" "+e.RecordType)
	}
	if got := strings.Join(created, ","); got != "www.example.com A" {
		t.Errorf("created %s, want only www.example.com A", got)
	}
}
