package source

import (
	"context"

	"k8s.io/client-go/tools/cache"
)

// The informer kit: what a source in its own package (gateway, istio, node, pod) needs to watch its
// objects the way the core sources do, so that event fan-out, cache trimming and the wait for the
// caches (with its RBAC diagnosis) live in one place.

// Handlers fans informer events out to the functions registered through a source's AddEventHandler.
// The zero value is ready to use.
type Handlers struct {
	h eventHandlers
}

// Add registers fn; it is called after every add, update and delete of a watched object.
func (h *Handlers) Add(fn func()) { h.h.add(fn) }

// NameObjects makes the events of the informer watched under name carry their object's resource
// label (kind/namespace/name), for an ObjectSource; call it before StartAndSync.
func (h *Handlers) NameObjects(name, kind string) { h.h.nameObjects(name, kind) }

// DependentsOf makes the events of the informer watched under name carry the resource labels of the
// objects whose endpoints read the changed object, as of returns them (none: the event is dropped);
// call it before StartAndSync.
func (h *Handlers) DependentsOf(name string, of func(obj any) []string) { h.h.dependentsOf(name, of) }

// AddObject registers fn as ObjectSource.AddObjectHandler does.
func (h *Handlers) AddObject(fn func(resource string)) { h.h.addObject(fn) }

// Notify calls every registered function (for sources that learn of changes another way).
func (h *Handlers) Notify() { h.h.notify("") }

// TrimObject is the informer transform of every source: it drops managed fields and kubectl's
// last-applied copy (and most of a pod) before the object enters the cache.
func TrimObject(obj any) (any, error) { return trimObject(obj) }

// Starter starts informers: a SharedInformerFactory's Start, or any function with its signature.
type Starter func(stop <-chan struct{})

// StartAndSync hooks h to every watched informer (keyed by the resource name used in errors), runs
// the starters, and waits for the caches; on failure the error names the resources that did not sync.
func StartAndSync(ctx context.Context, watched map[string]cache.SharedIndexInformer, h *Handlers, starters ...Starter) error {
	return startAndSyncAll(ctx, watched, &h.h, starters...)
}
