// Package controller drives the pipeline: sources → registry → plan → provider. Informer events are
// debounced into one targeted reconcile over cached state, so a change reaches DNS in well under a
// second; a full resync every --interval lists the provider again and heals drift. No error ends the
// process: the controller logs it, backs off and retries.
package controller

import (
	"context"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	"github.com/zonekeeper/zonekeeper/internal/registry"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Settings configure a Controller.
type Settings struct {
	// View names the view this controller publishes (empty without views); it is put on reports.
	View    string
	OwnerID string
	// OldOwnerID is --migrate-from-txt-owner (see plan.Input).
	OldOwnerID         string
	Policy             plan.Policy
	DomainFilter       plan.DomainFilter
	ManagedRecordTypes []string
	ExcludeRecordTypes []string
	// Interval between resyncs: the sources are planned again and the provider's zones are probed
	// (provider.ZoneProber) or, for a provider without a probe, listed again.
	Interval time.Duration
	// ProviderCacheTime is --provider-cache-time: how long the provider's records are trusted before a
	// full relisting. Zero: a provider with a zone probe relists at its own budget-derived period; one
	// without relists at every resync.
	ProviderCacheTime time.Duration
	// Debounce is how long events are collected before a reconcile (--min-event-sync-interval).
	Debounce time.Duration
	// DryRun computes and logs changes without applying them.
	DryRun bool
	// QuietProblems leaves input problems unreported: with several views the same input reaches every
	// view's controller, and one of them reports it.
	QuietProblems bool
	// Observer and Notifier are optional.
	Observer Observer
	Notifier Notifier
	// Guard holds back plans that would delete or update too much of a zone (--guard-*).
	Guard plan.Guard
	// Capabilities, when set, are the provider's: a create or update it cannot hold (a record type, a
	// set identifier or a wildcard it lacks) is left out of the changes and reported as a problem on
	// its object instead of being sent and refused. ProviderName names the provider in the reports.
	Capabilities *provider.Capabilities
	ProviderName string
}

// Controller reconciles a source with a registry.
type Controller struct {
	source   source.Source
	registry registry.Registry
	settings Settings
	log      *slog.Logger
	now      func() time.Time

	reported reportedSet
	// guard is the mass-change guard's memory; guardRecheck is when settling deletes are due.
	guard        plan.GuardState
	guardRecheck time.Time
	retries      retryBook
	// backoff for whole-run failures (source, listing, provider unreachable).
	failures int
	// relisted is when the provider's records were last dropped in full (Resync, in Unix nanoseconds:
	// tests call Resync beside Run); unreadable names the zones the last run left out because they
	// could not be listed.
	relisted   atomic.Int64
	unreadable string
	// trigger and firstEvent describe the next reconcile to the observer; Run sets them.
	trigger    Trigger
	firstEvent time.Time
	// idle is the last complete plan that changed nothing; hashSeed seeds the hash of its input.
	idle     idleMemo
	hashSeed maphash.Seed

	// The event path (incremental.go): the objects events named since the last run, the desired
	// state by object and name, the names whose planned changes did not go out (held back or
	// rejected), the record sets owned per guard zone, and what the sources could not read at the
	// last full run. fullDue makes the next run plan everything (Resync).
	dirty            dirtyObjects
	index            desiredIndex
	pending          map[string]bool
	ownedZones       map[string]int
	sourceUnreadable []string
	fullDue          atomic.Bool

	// running is held by Run; events is fed by the one handler registered with the source, which
	// also counts them (sourceEventCount; sourceCounted once it is registered).
	running          sync.Mutex
	eventsOnce       sync.Once
	events           chan struct{}
	sourceEventCount atomic.Uint64
	sourceCounted    atomic.Bool
}

// New returns a controller.
func New(src source.Source, reg registry.Registry, settings Settings, log *slog.Logger) *Controller {
	if settings.Interval <= 0 {
		settings.Interval = time.Minute
	}
	if settings.Observer == nil {
		settings.Observer = noObserver{}
	}
	if settings.Notifier == nil {
		settings.Notifier = noNotifier{}
	}
	return &Controller{
		source:     src,
		registry:   reg,
		settings:   settings,
		log:        log,
		now:        time.Now,
		reported:   newReportedSet(),
		retries:    newRetryBook(),
		pending:    map[string]bool{},
		ownedZones: map[string]int{},
		hashSeed:   maphash.MakeSeed(),
	}
}

// Outcome is what one reconcile did.
type Outcome struct {
	// Changes that were planned (and, unless dry-run, sent), after per-record backoff.
	Changes *plan.Changes
	// Rejected changes the provider refused; they are retried with backoff.
	Rejected int
	// Problems in the sources' input, and records the provider cannot hold (Settings.Capabilities),
	// and Conflicts between objects, found in this run.
	Problems  []endpoint.Problem
	Conflicts []plan.Conflict
	// OwnerMismatches are changes left out because another owner holds the record.
	OwnerMismatches []plan.OwnerMismatch
	// HeldByPolicy are changes to our records that --policy forbids.
	HeldByPolicy []plan.HeldChange
	// Guard is the mass-change guard's verdict per zone with deletes or updates.
	Guard []plan.ZoneVerdict
	// Cost is what applying Changes would cost in API calls; set in a dry run when the provider can
	// tell (provider.CallEstimator), else nil.
	Cost *provider.CallEstimate
	// UnreadableZones are the zones left out of this run because they could not be listed.
	UnreadableZones []string
}

// invalidator is implemented by registries that cache the provider's records.
type invalidator interface{ Invalidate() }

// Resync makes the next reconcile list the provider again instead of trusting the cache.
func (c *Controller) Resync() {
	c.fullDue.Store(true)
	c.relisted.Store(c.now().UnixNano())
	if inv, ok := c.registry.(invalidator); ok {
		inv.Invalidate()
	}
}

// RunOnce performs one reconcile. It returns an error when the run could not complete (a source or the
// provider failed as a whole); changes the provider rejected one by one are not an error: they are
// reported and retried with backoff.
func (c *Controller) RunOnce(ctx context.Context) (Outcome, error) {
	return c.runOnce(ctx, false)
}

// runOnce is RunOnce; with scoped set, a run may plan only the names the events since the last run
// touched (reconcileObjects), unless a full plan is due.
func (c *Controller) runOnce(ctx context.Context, scoped bool) (Outcome, error) {
	report := Report{View: c.settings.View, Trigger: c.trigger, Started: c.now(), FirstEvent: c.firstEvent}
	if report.Trigger == "" {
		report.Trigger = TriggerOnce
	}
	c.trigger, c.firstEvent = "", time.Time{}
	listing := c.sourceListing() // before the take: see idle_carry.go
	resources, all := c.dirty.take()
	var out Outcome
	var err error
	done := false
	if scoped && !all && !c.fullDue.Load() {
		out, done, err = c.reconcileObjects(ctx, &report, resources, listing)
	}
	if !done {
		c.fullDue.Store(false)
		out, err = c.reconcile(ctx, &report)
	}
	if err != nil {
		c.fullDue.Store(true) // whatever the failed run took on is planned again, in full
	}
	report.Finished = c.now()
	report.Err = err
	c.settings.Observer.Reconciled(report)
	return out, err
}

func (c *Controller) reconcile(ctx context.Context, report *Report) (Outcome, error) {
	filter := c.settings.DomainFilter
	if f, ok := c.registry.(provider.DomainFilterer); ok {
		pf, err := f.DomainFilter(ctx)
		if err != nil {
			report.Stage = "provider"
			return Outcome{}, fmt.Errorf("the provider's domain filter: %w", err)
		}
		filter = filter.And(pf)
	}
	// Whether the memo still holds but for the sources is asked once: before listing the sources when
	// their last listing may be reused, else after it.
	// The listing is read here, after runOnce took the dirty objects, not reused from runOnce's read
	// before the take: an event counted between that read and the take would leave the count equal to
	// the memo's, so the memo's listing would be reused although this run took that event's object, and
	// the change would wait for the next resync.
	listing := c.sourceListing()
	var holds, asked bool
	var err error
	if listing.reusable(c.idle, c.now()) {
		if holds, err = c.idleRegistryHolds(ctx, filter); err != nil {
			report.Stage = "registry"
			return Outcome{}, err
		}
		asked = true
		if holds {
			// No event since the memo's sources were listed, and the registry's cache is the one it
			// was planned against: the sources are not listed again.
			res := source.Result{Problems: c.idle.problems, Unreadable: c.idle.unreadable}
			report.Desired, report.Problems, report.ProblemList = c.idle.desiredCount, len(res.Problems), res.Problems
			c.reportProblems(res.Problems)
			return c.idleOutcome(res, report), nil
		}
	}
	res, err := c.source.Endpoints(ctx)
	if err != nil {
		report.Stage = "source"
		return Outcome{}, err
	}
	report.Desired, report.Problems, report.ProblemList = len(res.Endpoints), len(res.Problems), res.Problems
	c.reportProblems(res.Problems)
	if !asked {
		if holds, err = c.idleRegistryHolds(ctx, filter); err != nil {
			report.Stage = "registry"
			return Outcome{}, err
		}
	}

	adjusted, hash, skip, err := c.idleCheck(ctx, res, holds)
	if err != nil {
		report.Stage = "provider"
		return Outcome{}, err
	}
	if skip {
		// The index is what the memo's plan indexed: no event's plan ran since (each one drops the
		// memo's hash, when it keeps the memo at all).
		c.idle.remember(res, listing)
		return c.idleOutcome(res, report), nil
	}
	c.idle.valid = false
	if _, ok := c.source.(source.ObjectSource); ok {
		c.index.rebuild(res.Endpoints)
		c.sourceUnreadable = res.Unreadable
	}
	current, serial, mutations, memoable, err := c.records(ctx)
	unreadable, partial := provider.AsUnreadableZones(err)
	if err != nil && !partial {
		report.Stage = "registry"
		return Outcome{}, err
	}
	memoable = memoable && !partial
	desired := res.Endpoints
	if partial {
		// What an unreadable zone holds is unknown: plan nothing there, create nothing, delete nothing.
		report.UnreadableZones = unreadable.Names()
		c.reportUnreadable(unreadable)
		desired, current = withoutCovered(desired, unreadable), withoutCovered(current, unreadable)
		adjusted = nil // adjusted before the unreadable zones were known
	} else {
		c.reportUnreadable(nil)
	}
	report.Current = len(current)
	if adjusted != nil {
		desired = adjusted
	} else if adj, ok := c.registry.(provider.EndpointAdjuster); ok {
		if desired, err = adj.AdjustEndpoints(ctx, desired); err != nil {
			report.Stage = "provider"
			return Outcome{}, fmt.Errorf("adjusting endpoints: %w", err)
		}
	}
	hashed := adjusted != nil
	result := plan.Calculate(c.planInput(desired, current, filter, res.Unreadable))
	c.ownedZones = c.settings.Guard.Owned(current, c.settings.OwnerID)
	out, err := c.applyPlan(ctx, report, result, res.Problems, nil)
	if err != nil {
		return out, err
	}
	if memoable && !result.Changes.HasChanges() && len(c.retries.entries) == 0 && c.guardRecheck.IsZero() {
		if !hashed { // hashed only now: a reconcile that changes something never pays for it (the plan does not modify its input)
			hash = desiredHash(c.hashSeed, desired, res.Unreadable)
		}
		c.idle = idleMemo{valid: true, hashed: true, desired: hash, serial: serial, mutations: mutations, filter: filter,
			current: len(current), result: result}
		c.idle.remember(res, listing)
	}
	return out, nil
}

// planInput is the plan's input under the controller's settings: the same for a full plan and for
// an event's plan of some names.
func (c *Controller) planInput(desired, current []*endpoint.Endpoint, filter plan.DomainFilter, unreadable []string) plan.Input {
	return plan.Input{
		Desired:            desired,
		Current:            current,
		OwnerID:            c.settings.OwnerID,
		OldOwnerID:         c.settings.OldOwnerID,
		Policy:             c.settings.Policy,
		DomainFilter:       filter,
		ManagedRecordTypes: c.settings.ManagedRecordTypes,
		ExcludeRecordTypes: c.settings.ExcludeRecordTypes,
		Unreadable:         unreadable,
	}
}
