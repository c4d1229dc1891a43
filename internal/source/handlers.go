package source

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// eventHandlers fans informer events out to the functions registered with AddEventHandler and
// AddObjectHandler.
type eventHandlers struct {
	mu         sync.RWMutex
	fns        []func()
	objectFns  []func(resource string)
	objectKind map[string]string // watched informer name → resource-label kind of its objects
	// dependents maps the objects of a watched informer to the resource labels of the objects whose
	// endpoints read them (an EndpointSlice to its Service); see dependentsOf.
	dependents map[string]func(obj any) []string
}

func (h *eventHandlers) add(fn func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fns = append(h.fns, fn)
}

func (h *eventHandlers) addObject(fn func(resource string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.objectFns = append(h.objectFns, fn)
}

// nameObjects makes the events of the informer watched under name carry their object's resource
// label (kind/namespace/name); call it before the informers start.
func (h *eventHandlers) nameObjects(name, kind string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.objectKind == nil {
		h.objectKind = map[string]string{}
	}
	h.objectKind[name] = kind
}

// dependentsOf makes the events of the informer watched under name carry the resource labels of
// the objects whose endpoints read the changed object, as of returns them (for an update, of the old
// and of the new object; none: no endpoint reads it, and the event is dropped). Call it before the
// informers start.
func (h *eventHandlers) dependentsOf(name string, of func(obj any) []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dependents == nil {
		h.dependents = map[string]func(obj any) []string{}
	}
	h.dependents[name] = of
}

// notify tells every handler; resource is "" when the event may concern any object.
func (h *eventHandlers) notify(resource string) {
	h.mu.RLock()
	fns, objectFns := h.fns, h.objectFns
	h.mu.RUnlock()
	for _, fn := range fns {
		fn()
	}
	for _, fn := range objectFns {
		fn(resource)
	}
}

// watch notifies on every add, update and delete the informer watched under name sees, naming the
// object when nameObjects gave that informer a kind, or the objects that read it when dependentsOf
// gave it a mapping.
func (h *eventHandlers) watch(name string, inf cache.SharedIndexInformer) error {
	h.mu.RLock()
	kind, dependents := h.objectKind[name], h.dependents[name]
	h.mu.RUnlock()
	// concerned are the resource labels an event of obj names ("" for any object).
	concerned := func(obj any) []string {
		switch {
		case dependents != nil:
			return dependents(untombstoned(obj))
		case kind == "":
			return []string{""}
		}
		// The key function handles the tombstones of deletes seen late.
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			return []string{""}
		}
		return []string{kind + "/" + key}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { h.notifyEach(concerned(obj)) },
		UpdateFunc: func(old, obj any) {
			if !unchanged(old, obj) {
				h.notifyEach(append(concerned(old), concerned(obj)...))
			}
		},
		DeleteFunc: func(obj any) { h.notifyEach(concerned(obj)) },
	})
	return err
}

// unchanged says whether an update changed nothing the sources read: the same resourceVersion (an
// informer's relist after its watch expired delivers every object again), or objects that differ in
// their resourceVersion only once the informer's transform has cut them down (a node's heartbeat, a
// pod's container restart count). Such an update plans nothing.
func unchanged(old, obj any) bool {
	o, ok1 := old.(runtime.Object)
	n, ok2 := obj.(runtime.Object)
	if !ok1 || !ok2 {
		return false
	}
	om, err1 := meta.Accessor(o)
	nm, err2 := meta.Accessor(n)
	if err1 != nil || err2 != nil {
		return false
	}
	if om.GetResourceVersion() == nm.GetResourceVersion() {
		return true
	}
	o, n = o.DeepCopyObject(), n.DeepCopyObject()
	om, _ = meta.Accessor(o)
	nm, _ = meta.Accessor(n)
	om.SetResourceVersion("")
	nm.SetResourceVersion("")
	return equality.Semantic.DeepEqual(o, n)
}

// notifyEach notifies once per distinct resource.
func (h *eventHandlers) notifyEach(resources []string) {
	for i, r := range resources {
		if !slices.Contains(resources[:i], r) {
			h.notify(r)
		}
	}
}

// untombstoned is the last known state of an object whose delete was seen late.
func untombstoned(obj any) any {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}
