package controller

import (
	"context"
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// applyPlan is the part of a reconcile after the plan, the same for a full plan and for an event's
// plan of some names: it reports what the plan found, leaves out what the provider cannot hold, holds
// back what backs off and what the mass-change guard holds, and sends the rest. scope is nil for a
// full plan, else the names (plan.NameKey) the plan covered.
func (c *Controller) applyPlan(ctx context.Context, report *Report, result plan.Result, sourceProblems []endpoint.Problem, scope map[string]bool) (Outcome, error) {
	c.reportConflicts(result.Conflicts)
	c.reportOwnerMismatches(result.OwnerMismatches)
	c.reportHeld(result.HeldByPolicy)

	planned, refused := c.withoutUnholdable(result.Changes)
	c.reportRefused(refused)
	problems := slices.Clip(sourceProblems)
	for _, r := range refused {
		problems = append(problems, r.problem)
	}
	report.Problems, report.ProblemList = len(problems), problems
	now := c.now()
	changes := c.retries.holdBack(planned, now)
	var inScope func(string) bool
	if scope != nil {
		inScope = func(name string) bool { return scope[name] }
	}
	changes, report.Guard, c.guardRecheck = c.settings.Guard.CheckScoped(changes, c.ownedZones, inScope, &c.guard, now)
	c.reportGuard(report.Guard)
	report.Changes, report.Conflicts, report.OwnerMismatches = changes, result.Conflicts, result.OwnerMismatches
	report.HeldByPolicy = result.HeldByPolicy
	out := Outcome{Changes: changes, Problems: problems, Conflicts: result.Conflicts, OwnerMismatches: result.OwnerMismatches,
		HeldByPolicy: result.HeldByPolicy, Guard: report.Guard, UnreadableZones: report.UnreadableZones}
	if !changes.HasChanges() {
		c.pending = pendingNames(planned, nil, nil)
		c.log.Info("All records are already up to date", "desired", report.Desired, "current", report.Current, "planned", len(scope))
		return out, nil
	}
	logChanges(c.log, changes, c.settings.DryRun)
	if c.settings.DryRun {
		out.Cost = c.estimate(ctx, changes)
		return out, nil
	}
	if err := checkWriteFence(ctx); err != nil {
		// Another replica may lead by now: write nothing, and plan everything again next time.
		c.Resync()
		report.Stage = "leader"
		return out, err
	}
	err := c.registry.ApplyChanges(ctx, changes)
	now = c.now()
	var rejected map[endpoint.Key]bool
	if err != nil {
		applyErr, partial := asApplyError(err)
		if !partial {
			// Unknown how much was applied: trust nothing cached.
			c.Resync()
			report.Stage = "provider"
			return out, err
		}
		out.Rejected = len(applyErr.Rejected)
		report.Rejected = applyErr.Rejected
		rejected = make(map[endpoint.Key]bool, len(applyErr.Rejected))
		for _, r := range applyErr.Rejected {
			rejected[r.Endpoint.Key()] = true
			firstTime := c.retries.attempts(r.Endpoint.Key()) == 0
			delay := c.retries.failed(r.Endpoint.Key(), now)
			c.log.Warn("Change rejected by the provider",
				"action", string(r.Action), "record", r.Endpoint.DNSName, "type", r.Endpoint.RecordType,
				"resource", r.Endpoint.Resource(), "error", r.Err.Error(), "retryIn", delay.String())
			if firstTime {
				c.settings.Notifier.Rejected(r.Endpoint.Resource(), r.Endpoint, r.Err)
			}
		}
	}
	c.retries.succeeded(changes, now)
	c.pending = pendingNames(planned, changes, rejected)
	c.countOwned(changes, rejected)
	c.notifyPublished(changes, report.Rejected)
	c.log.Info("Changes applied", "changes", changes.Len(), "rejected", out.Rejected, "duration", c.now().Sub(report.Started).String())
	return out, nil
}

// pendingNames are the names (plan.NameKey) of the planned changes that did not go out or were
// rejected: held back by a retry's backoff or by the guard. An event's plan covers them again, so
// that it decides about them as a full plan would.
func pendingNames(planned, sent *plan.Changes, rejected map[endpoint.Key]bool) map[string]bool {
	out := map[string]bool{}
	if planned == nil {
		return out
	}
	went := map[endpoint.Key]bool{}
	if sent != nil {
		for _, list := range [][]*endpoint.Endpoint{sent.Create, sent.UpdateNew, sent.Delete} {
			for _, e := range list {
				if k := e.Key(); !rejected[k] {
					went[k] = true
				}
			}
		}
	}
	for _, list := range [][]*endpoint.Endpoint{planned.Create, planned.UpdateNew, planned.Delete} {
		for _, e := range list {
			if !went[e.Key()] {
				out[plan.NameKey(e.DNSName)] = true
			}
		}
	}
	return out
}

// countOwned keeps the guard's count of owned record sets per zone up to date between full plans.
func (c *Controller) countOwned(sent *plan.Changes, rejected map[endpoint.Key]bool) {
	if !c.settings.Guard.Enabled() {
		return
	}
	for _, e := range sent.Create {
		if !rejected[e.Key()] {
			c.ownedZones[c.settings.Guard.ZoneOf(e.DNSName)]++
		}
	}
	for _, e := range sent.Delete {
		if z := c.settings.Guard.ZoneOf(e.DNSName); !rejected[e.Key()] && c.ownedZones[z] > 0 {
			c.ownedZones[z]--
		}
	}
}
