package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// namedRecords is implemented by registries that can read the cached records at some names alone
// (txt.Registry.RecordsNamed); ok is false when only a full listing can tell.
type namedRecords interface {
	RecordsNamed(names []string) (eps []*endpoint.Endpoint, serial, mutations uint64, ok bool)
}

// maxScopedObjects bounds an event's plan: past it (a namespace deleted, a rollout of thousands of
// objects in one debounce) one full plan costs less than asking for each object alone.
func maxScopedObjects(indexed int) int { return max(256, indexed/8) }

// reconcileObjects plans only the names that the objects named by events had or have, together with
// the names whose changes are still pending, through the same plan function as a full reconcile, with
// the desired endpoints of other objects at those names from the index and the current records from
// the registry's cache. Every plan row is one name, so this plan is the full plan restricted to those
// names; the names of no dirty object and no pending change have nothing to change (the last plan
// left them so). done is false when it cannot be done that way (the source or the registry cannot
// answer for single objects or names, or too many objects changed): the caller then plans everything.
//
// listing describes the sources' events the run serves (read before the dirty objects were taken):
// a run that leaves the idle memo describing the state keeps it (idle_carry.go).
func (c *Controller) reconcileObjects(ctx context.Context, report *Report, resources []string, listing sourceListing) (out Outcome, done bool, err error) {
	src, ok := c.source.(source.ObjectSource)
	lookup, ok2 := c.registry.(namedRecords)
	if !ok || !ok2 || !c.index.valid || c.settings.DryRun || c.unreadable != "" || len(resources) > maxScopedObjects(c.index.objects()) {
		return Outcome{}, false, nil
	}
	kinds := src.ObjectKinds()
	for _, r := range resources {
		if !slices.Contains(kinds, source.ResourceKind(r)) {
			return Outcome{}, false, nil
		}
	}
	res, err := src.ObjectEndpoints(ctx, resources)
	if err != nil {
		c.log.Debug("Planning everything: the source cannot answer for the objects alone", "error", err.Error())
		return Outcome{}, false, nil
	}
	// A source that merges endpoints across objects answers for the objects sharing names with the
	// named ones too: the run covers them all.
	resources = coveredObjects(resources, res.Objects)
	byResource := make(map[string][]*endpoint.Endpoint, len(resources))
	for _, r := range resources {
		byResource[r] = nil
	}
	for _, e := range res.Endpoints {
		if _, asked := byResource[e.Resource()]; !asked {
			return Outcome{}, false, nil // an endpoint of another object: its index entry would be wrong
		}
		byResource[e.Resource()] = append(byResource[e.Resource()], e)
	}
	scope := make(map[string]bool, len(c.pending)+2*len(resources))
	for name := range c.pending {
		scope[name] = true
	}
	for _, r := range resources {
		for _, name := range c.index.names(r) {
			scope[name] = true
		}
	}
	for _, e := range res.Endpoints {
		scope[plan.NameKey(e.DNSName)] = true
	}
	names := make([]string, 0, len(scope))
	for name := range scope {
		if !endpoint.IsASCII(name) {
			return Outcome{}, false, nil // punycode and Unicode spellings of one name: the registry keeps the one listed
		}
		names = append(names, name)
	}
	filter := c.settings.DomainFilter
	if f, ok := c.registry.(provider.DomainFilterer); ok {
		pf, err := f.DomainFilter(ctx)
		if err != nil {
			report.Stage = "provider"
			return Outcome{}, true, fmt.Errorf("the provider's domain filter: %w", err)
		}
		filter = filter.And(pf)
	}
	current, serial, mutations, ok := lookup.RecordsNamed(names)
	if !ok {
		return Outcome{}, false, nil
	}

	// From here on the run is this plan: the index takes the objects' new endpoints, and what is
	// reported is known for these names and objects only.
	prior, carry := c.idle, c.idleCarryable(listing, serial, mutations, filter)
	c.idle.valid = false
	dirty := make(map[string]bool, len(resources))
	for _, r := range resources {
		dirty[r] = true
	}
	c.reported.inScope = func(token string) bool {
		return !strings.HasPrefix(token, "zone:") && (scope[token] || dirty[token])
	}
	defer func() { c.reported.inScope = nil }()
	for r, eps := range byResource {
		c.index.replace(r, eps)
	}
	report.Scope = slices.Sorted(slices.Values(resources))
	report.Desired, report.Current = c.index.total, len(current)
	c.reportProblems(res.Problems)
	desired := c.index.at(scope)
	if adj, ok := c.registry.(provider.EndpointAdjuster); ok {
		if desired, err = adj.AdjustEndpoints(ctx, desired); err != nil {
			report.Stage = "provider"
			return Outcome{}, true, fmt.Errorf("adjusting endpoints: %w", err)
		}
	}
	planAgainst := func(current []*endpoint.Endpoint) plan.Result {
		return plan.Calculate(c.planInput(desired, current, filter, c.sourceUnreadable))
	}
	result := planAgainst(current)
	out, err = c.applyPlan(ctx, report, result, res.Problems, scope)
	if err == nil && carry {
		c.carryIdle(prior, listing, out, res.Problems, dirty, scope, func() (plan.Result, uint64, uint64, bool) {
			if !result.Changes.HasChanges() {
				return result, serial, mutations, true // nothing was written: the plan stands
			}
			after, serial, mutations, ok := lookup.RecordsNamed(names)
			return planAgainst(after), serial, mutations, ok
		})
	}
	return out, true, err
}

// coveredObjects are the objects asked for and those the answer made besides, each once.
func coveredObjects(asked, made []string) []string {
	if len(made) == 0 {
		return asked
	}
	seen := make(map[string]bool, len(asked)+len(made))
	out := make([]string, 0, len(asked)+len(made))
	for _, list := range [][]string{asked, made} {
		for _, r := range list {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}
