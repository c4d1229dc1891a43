package controller

import (
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Trigger says why a reconcile ran.
type Trigger string

const (
	TriggerStart  Trigger = "start"
	TriggerEvent  Trigger = "event"
	TriggerResync Trigger = "resync"
	TriggerRetry  Trigger = "retry"
	TriggerOnce   Trigger = "once"
)

// Report describes one finished reconcile, for metrics and readiness.
type Report struct {
	View     string
	Trigger  Trigger
	Started  time.Time
	Finished time.Time
	// FirstEvent is when the first of the events that this reconcile serves arrived (zero when the
	// run served no event): Finished - FirstEvent is the event-to-applied latency.
	FirstEvent time.Time
	// Desired and Current count endpoints from the sources and records from the registry.
	Desired, Current int
	// Scope is set when the run planned only the names that the events since the last run touched:
	// it lists the objects (resource labels) those events named. Current, Problems, ProblemList,
	// Conflicts, OwnerMismatches, HeldByPolicy and Guard then cover those names only (and the names
	// with changes still held back); Desired counts every desired endpoint. nil: a full plan.
	Scope []string
	// Changes sent (or, in a dry run, planned); nil when the run failed before planning.
	Changes  *plan.Changes
	Rejected []provider.RejectedChange
	Problems int
	// ProblemList, Conflicts and OwnerMismatches are what this run found, whether new or not.
	ProblemList     []endpoint.Problem
	Conflicts       []plan.Conflict
	OwnerMismatches []plan.OwnerMismatch
	// HeldByPolicy are changes to our records that --policy forbids.
	HeldByPolicy []plan.HeldChange
	// Guard is the mass-change guard's verdict per zone with deletes or updates (nil when it is off).
	Guard []plan.ZoneVerdict
	// UnreadableZones are the zones left out of planning because the provider could not list them.
	UnreadableZones []string
	// Err is set when the run could not complete; Stage says where: "source", "registry", "provider".
	Err   error
	Stage string
}

// Observer is told about every finished reconcile.
type Observer interface {
	Reconciled(Report)
}

// Notifier tells the owners of Kubernetes objects what happened to the names they asked for. Each
// method is called when a condition appears (not again while it persists). resource is an endpoint's
// resource label ("ingress/default/web").
type Notifier interface {
	Published(resource string, records []*endpoint.Endpoint)
	Rejected(resource string, record *endpoint.Endpoint, err error)
	Conflict(resource string, message string)
	InvalidInput(p endpoint.Problem)
}

// GuardNotifier is implemented by a Notifier that also tells the namespaces whose objects' records a
// held mass change would delete or update (their objects may be gone: the namespace is what is left).
type GuardNotifier interface {
	Held(namespaces []string, message string)
}

type noObserver struct{}

func (noObserver) Reconciled(Report) {}

type noNotifier struct{}

func (noNotifier) Published(string, []*endpoint.Endpoint)     {}
func (noNotifier) Rejected(string, *endpoint.Endpoint, error) {}
func (noNotifier) Conflict(string, string)                    {}
func (noNotifier) InvalidInput(endpoint.Problem)              {}
