package controller

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// zoneChecker is implemented by registries that forward provider.ZoneProber.
type zoneChecker interface {
	CheckZones(ctx context.Context, relist time.Duration) ([]string, error)
}

// refreshProvider decides, at each resync, what of the provider's cached records to trust. A provider
// that probes its zones drops only the zones whose probe changed (and all of them once its relisting
// period, --provider-cache-time or its own default, has passed); the run then lists just those. A
// provider without a probe is relisted in full, at most every --provider-cache-time. A failed probe
// relists everything, as before probes existed.
func (c *Controller) refreshProvider(ctx context.Context) {
	if zc, ok := c.registry.(zoneChecker); ok {
		stale, err := zc.CheckZones(ctx, c.settings.ProviderCacheTime)
		switch {
		case err == nil:
			if len(stale) > 0 {
				c.log.Info("Zones changed or due for relisting: listing them again", "zones", strings.Join(stale, ","))
			}
			return
		case !errors.Is(err, provider.ErrNoZoneProbe):
			c.log.Warn("Probing the provider's zones failed: listing everything again", "error", err.Error())
			c.Resync()
			return
		}
	}
	if t := c.settings.ProviderCacheTime; t > 0 && c.now().Sub(time.Unix(0, c.relisted.Load())) < t {
		return
	}
	c.Resync()
}

// reportUnreadable logs the zones left out of planning when that set changes (nil: none any more).
func (c *Controller) reportUnreadable(e *provider.UnreadableZonesError) {
	msg := ""
	if e != nil {
		msg = e.Error()
	}
	if msg == c.unreadable {
		return
	}
	c.unreadable = msg
	if e == nil {
		c.log.Info("Every zone can be listed again")
		return
	}
	for _, z := range e.Zones {
		c.log.Error("Zone left out of planning: the provider cannot list it; its records are neither created nor deleted until it can",
			"zone", z.Name, "zoneID", z.ID, "error", errString(z.Err))
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// withoutCovered drops the endpoints whose names belong to an unreadable zone.
func withoutCovered(eps []*endpoint.Endpoint, e *provider.UnreadableZonesError) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, 0, len(eps))
	for _, ep := range eps {
		if !e.Covers(ep.DNSName) {
			out = append(out, ep)
		}
	}
	return out
}

// callEstimator is implemented by registries that forward provider.CallEstimator.
type callEstimator interface {
	EstimateCalls(ctx context.Context, changes *plan.Changes) (provider.CallEstimate, error)
}

// estimate asks the registry what applying changes would cost in API calls, or returns nil.
func (c *Controller) estimate(ctx context.Context, changes *plan.Changes) *provider.CallEstimate {
	ce, ok := c.registry.(callEstimator)
	if !ok {
		return nil
	}
	est, err := ce.EstimateCalls(ctx, changes)
	if err != nil {
		if !errors.Is(err, provider.ErrNoEstimate) {
			c.log.Warn("The provider could not estimate the calls of the plan", "error", err.Error())
		}
		return nil
	}
	return &est
}
