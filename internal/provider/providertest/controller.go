// Package providertest is what the providers' own tests share beyond the conformance suite: running a
// provider under the TXT registry and the controller's loop, as the app builds them, to test what
// only shows through a resync (drift healed by the zone probe, calls while idle).
package providertest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/zonekeeper/zonekeeper/internal/controller"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry/txt"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// OwnerID is the TXT owner id RunController publishes with.
const OwnerID = "zk"

// FixedSource asks for the same endpoints every time (copies: the controller's run may modify them).
type FixedSource []*endpoint.Endpoint

func (f FixedSource) Endpoints(context.Context) (source.Result, error) {
	out := make([]*endpoint.Endpoint, len(f))
	for i, e := range f {
		out[i] = e.DeepCopy()
	}
	return source.Result{Endpoints: out}, nil
}

// AddEventHandler implements source.Source: the endpoints never change.
func (FixedSource) AddEventHandler(func()) {}

// RunController runs the TXT registry and the controller's loop over p, publishing eps, until the test
// ends. The owner id is OwnerID and the policy sync, whatever settings say; the registry's cache
// interval is the app's, max(--interval, --provider-cache-time) from settings.
func RunController(t testing.TB, p provider.Provider, settings controller.Settings, eps ...*endpoint.Endpoint) {
	t.Helper()
	reg, err := txt.New(p, txt.Config{OwnerID: OwnerID, CacheInterval: max(settings.Interval, settings.ProviderCacheTime)})
	if err != nil {
		t.Fatal(err)
	}
	settings.OwnerID, settings.Policy = OwnerID, plan.PolicySync
	c := controller.New(FixedSource(eps), reg, settings, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}
