package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/testbed"
)

// countingRegistry serves fixed records and counts what the controller asks of it.
type countingRegistry struct {
	mu          sync.Mutex
	records     []*endpoint.Endpoint
	err         error
	applied     []*plan.Changes
	invalidated int
	checked     int
}

func (r *countingRegistry) Records(context.Context) ([]*endpoint.Endpoint, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*endpoint.Endpoint, len(r.records))
	for i, e := range r.records {
		out[i] = e.DeepCopy()
	}
	return out, r.err
}

func (r *countingRegistry) ApplyChanges(_ context.Context, c *plan.Changes) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.applied = append(r.applied, c)
	return nil
}

func (r *countingRegistry) OwnerID() string { return "test" }

func (r *countingRegistry) Invalidate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.invalidated++
}

func (r *countingRegistry) counts() (invalidated, checked int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.invalidated, r.checked
}

// probingRegistry adds a zone probe that finds nothing changed.
type probingRegistry struct{ *countingRegistry }

func (r probingRegistry) CheckZones(context.Context, time.Duration) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checked++
	return nil, nil
}

func runFor(t *testing.T, c *Controller, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// Issue 16: with a provider that probes its zones, a resync probes them and does not drop the cache;
// the whole cache is dropped only at the start of a term.
func TestResyncProbesZonesInsteadOfRelisting(t *testing.T) {
	reg := probingRegistry{&countingRegistry{}}
	c := New(&listSource{}, reg, Settings{OwnerID: "test", Policy: plan.PolicySync, Interval: 20 * time.Millisecond}, slog.New(slog.DiscardHandler))
	runFor(t, c, 300*time.Millisecond)
	inv, checked := reg.counts()
	if inv != 1 || checked < 3 {
		t.Fatalf("invalidated %d times, probed %d times; want once (at start) and at every resync", inv, checked)
	}
}

// Without a probe, --provider-cache-time spaces the full relistings; 0 relists at every resync.
func TestProviderCacheTimeSpacesRelistings(t *testing.T) {
	for _, tc := range []struct {
		cacheTime time.Duration
		atLeast   int
		atMost    int
	}{{0, 4, 1000}, {time.Hour, 1, 1}} {
		reg := &countingRegistry{}
		c := New(&listSource{}, reg, Settings{OwnerID: "test", Policy: plan.PolicySync, Interval: 20 * time.Millisecond, ProviderCacheTime: tc.cacheTime},
			slog.New(slog.DiscardHandler))
		runFor(t, c, 300*time.Millisecond)
		if inv, _ := reg.counts(); inv < tc.atLeast || inv > tc.atMost {
			t.Errorf("--provider-cache-time=%s: %d relistings in 300 ms at a 20 ms interval, want %d..%d", tc.cacheTime, inv, tc.atLeast, tc.atMost)
		}
	}
}

// Issue 11: a zone the provider cannot list is left out of planning — nothing created there, nothing
// deleted — while the other zones are planned; the log and the outcome name it.
func TestUnreadableZoneLeftOutOfPlanning(t *testing.T) {
	owned := func(name, ip string) *endpoint.Endpoint {
		return a(name, ip, "service/default/old").WithLabel(endpoint.OwnerLabelKey, "test")
	}
	reg := &countingRegistry{
		records: []*endpoint.Endpoint{owned("gone.a.test", "192.0.2.1"), owned("gone.b.test", "192.0.2.2")},
		err: fmt.Errorf("listing: %w", &provider.UnreadableZonesError{
			Zones: []provider.UnreadableZone{{Name: "b.test", ID: "Z2", Err: errors.New("AccessDenied: not authorized")}}, Readable: []string{"a.test"}}),
	}
	src := &listSource{}
	src.set(nil, a("new.a.test", "192.0.2.3", "service/default/new"), a("new.b.test", "192.0.2.4", "service/default/new"))
	logs := &testbed.LogBuffer{}
	c := New(src, reg, Settings{OwnerID: "test", Policy: plan.PolicySync}, slog.New(slog.NewTextHandler(logs, nil)))
	out, err := c.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.applied) != 1 {
		t.Fatalf("applied %d times", len(reg.applied))
	}
	ch := reg.applied[0]
	if len(ch.Create) != 1 || ch.Create[0].DNSName != "new.a.test" || len(ch.Delete) != 1 || ch.Delete[0].DNSName != "gone.a.test" {
		t.Fatalf("changes %v; want only a.test's create and delete", ch)
	}
	if fmt.Sprint(out.UnreadableZones) != "[b.test]" || !strings.Contains(logs.String(), "Zone left out of planning") || !strings.Contains(logs.String(), "zone=b.test") {
		t.Fatalf("outcome %v, log:\n%s", out.UnreadableZones, logs)
	}
}
