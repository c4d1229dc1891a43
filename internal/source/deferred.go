package source

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// DeferredOptions tune how a source kind that cannot start yet is retried.
type DeferredOptions struct {
	// Retry is the first pause between attempts (default 5s); it doubles up to MaxRetry (default
	// 2m), with jitter. Zero Retry with NoRetry set tries once (zonekeeper --once).
	Retry, MaxRetry time.Duration
	NoRetry         bool
	// OnState is told after every attempt: err nil means the kind runs with everything it reads.
	OnState func(kind string, err error)
	Log     *slog.Logger
	// Access answers the access checks; kinds started together share one (nil: a checker of its own).
	Access *AccessChecker
}

// Deferred runs one source kind that may not be able to start: its CRD is not installed, RBAC does
// not let it read, or an optional resource it reads is forbidden (it then runs without it). Until
// the kind runs, its Endpoints are empty and Result.Unreadable names its resource kinds, so that
// other sources keep publishing and its records are kept. It retries in the background and starts
// (or restarts with everything) by itself when the cause goes away: no process restart.
type Deferred struct {
	kind Kind
	env  Env
	opt  DeferredOptions

	mu       sync.Mutex
	inner    Source
	stop     context.CancelFunc // stops inner's informers
	err      error              // why the kind is not running fully; nil when it is
	handlers []func()
	// objectHandlers are registered with every running source as object handlers.
	objectHandlers []func(resource string)
}

var _ ObjectSource = (*Deferred)(nil)

// StartDeferred makes a first attempt at once and, when it does not fully succeed, keeps retrying
// until ctx ends (unless opt.NoRetry).
func StartDeferred(ctx context.Context, kind Kind, env Env, opt DeferredOptions) *Deferred {
	if opt.Retry <= 0 {
		opt.Retry = 5 * time.Second
	}
	if opt.MaxRetry < opt.Retry {
		opt.MaxRetry = max(2*time.Minute, opt.Retry)
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	d := &Deferred{kind: kind, env: env, opt: opt}
	d.attempt(ctx, true)
	if d.Err() != nil && !opt.NoRetry {
		go d.retry(ctx)
	}
	return d
}

// Err is why the kind does not run fully (nil when it does); it names the kind.
func (d *Deferred) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		return nil
	}
	return fmt.Errorf("--source=%s: %w", d.kind.Name, d.err)
}

// Inner is the running source, nil while the kind waits.
func (d *Deferred) Inner() Source {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.inner
}

func (d *Deferred) retry(ctx context.Context) {
	wait := d.opt.Retry
	for {
		jittered := wait/2 + rand.N(wait/2+1)
		select {
		case <-ctx.Done():
			return
		case <-time.After(jittered):
		}
		if d.attempt(ctx, false) {
			return
		}
		wait = min(2*wait, d.opt.MaxRetry)
	}
}

// attempt checks access and builds the source; it reports whether the kind now runs fully.
func (d *Deferred) attempt(ctx context.Context, first bool) bool {
	reads := d.kind.Reads(d.env.Config)
	var blocking, optional []*AccessError
	if d.env.Kube != nil {
		if d.opt.Access == nil {
			d.opt.Access = NewAccessChecker(d.env.Kube)
		}
		for _, e := range d.opt.Access.Check(ctx, d.env.Config.Namespace, reads) {
			if e.Resource.Optional != "" && !e.NotServed && e.Unasked == nil {
				optional = append(optional, e)
			} else {
				blocking = append(blocking, e)
			}
		}
	}
	if len(blocking) > 0 {
		d.setState(first, nil, nil, joinAccess(blocking))
		return false
	}
	env := d.env
	env.Config.SkipResources = nil
	for _, e := range optional {
		env.Config.SkipResources = append(env.Config.SkipResources, e.Resource.String())
	}
	if !first && len(optional) > 0 && d.Inner() != nil && slices.Equal(env.Config.SkipResources, d.running()) {
		return false // still degraded the same way: keep what runs
	}
	runCtx, stop := context.WithCancel(ctx)
	s, err := d.kind.New(runCtx, env)
	if err != nil {
		stop()
		d.setState(first, nil, nil, err)
		return false
	}
	var degraded error
	if len(optional) > 0 {
		var msgs []error
		for _, e := range optional {
			msgs = append(msgs, fmt.Errorf("%w: %s", e, e.Resource.Optional))
		}
		degraded = fmt.Errorf("running without some resources: %w", errors.Join(msgs...))
	}
	d.setState(first, s, stop, degraded)
	return degraded == nil
}

func joinAccess(list []*AccessError) error {
	errs := make([]error, len(list))
	for i, e := range list {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// running is the SkipResources of the running source.
func (d *Deferred) running() []string {
	if ds, ok := d.Inner().(interface{ skipped() []string }); ok {
		return ds.skipped()
	}
	return nil
}

// setState swaps in a new source (when s is not nil), records err and tells the handlers and the
// observer. A change of the error is logged once, not on every attempt.
func (d *Deferred) setState(first bool, s Source, stop context.CancelFunc, err error) {
	d.mu.Lock()
	changed := (d.err == nil) != (err == nil) || (d.err != nil && err != nil && d.err.Error() != err.Error())
	var oldStop context.CancelFunc
	var handlers []func()
	var objectHandlers []func(string)
	if s != nil {
		oldStop = d.stop
		d.inner, d.stop = s, stop
		handlers = slices.Clone(d.handlers)
		objectHandlers = slices.Clone(d.objectHandlers)
	}
	d.err = err
	d.mu.Unlock()
	if oldStop != nil {
		oldStop()
	}
	for _, fn := range handlers {
		s.AddEventHandler(fn)
	}
	for _, fn := range objectHandlers {
		objectHandlersOf(s, fn)
	}
	switch {
	case err != nil && (first || changed):
		d.opt.Log.Error("Source cannot run fully; its records are kept and it is retried", "source", d.kind.Name, "error", err.Error())
	case err == nil && !first:
		d.opt.Log.Info("Source started", "source", d.kind.Name)
	}
	if d.opt.OnState != nil {
		d.opt.OnState(d.kind.Name, err)
	}
	if s != nil && !first {
		for _, fn := range handlers {
			fn() // the new source's objects are news to the controller
		}
		for _, fn := range objectHandlers {
			fn("") // all of them, whatever their kind
		}
	}
}

// Endpoints returns the running source's endpoints, or none and the kind marked unreadable.
func (d *Deferred) Endpoints(ctx context.Context) (Result, error) {
	inner := d.Inner()
	if inner == nil {
		return Result{Unreadable: d.kind.ResourceLabelKinds()}, nil
	}
	return inner.Endpoints(ctx)
}

// ReadsUnwatched implements UnwatchedReader for the running source.
func (d *Deferred) ReadsUnwatched() bool {
	inner := d.Inner()
	return inner != nil && ReadsUnwatched(inner)
}

// AddEventHandler registers fn with the running source and every later one.
func (d *Deferred) AddEventHandler(fn func()) {
	d.mu.Lock()
	d.handlers = append(d.handlers, fn)
	inner := d.inner
	d.mu.Unlock()
	if inner != nil {
		inner.AddEventHandler(fn)
	}
}

// LookupObject forwards to the running source, for Events.
func (d *Deferred) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if l, ok := d.Inner().(ObjectLookup); ok {
		return l.LookupObject(kind, namespace, name)
	}
	return nil, false
}

// ObjectKinds implements ObjectSource: the running source's, none while the kind waits.
func (d *Deferred) ObjectKinds() []string {
	if d.Inner() == nil {
		return nil
	}
	return objectKindsOf(d.Inner())
}

// AddObjectHandler registers fn with the running source and every later one.
func (d *Deferred) AddObjectHandler(fn func(resource string)) {
	d.mu.Lock()
	d.objectHandlers = append(d.objectHandlers, fn)
	inner := d.inner
	d.mu.Unlock()
	if inner != nil {
		objectHandlersOf(inner, fn)
	}
}

// ObjectEndpoints implements ObjectSource through the running source.
func (d *Deferred) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	o, ok := d.Inner().(ObjectSource)
	if !ok {
		return Result{}, fmt.Errorf("--source=%s cannot make the endpoints of single objects now", d.kind.Name)
	}
	return o.ObjectEndpoints(ctx, resources)
}
