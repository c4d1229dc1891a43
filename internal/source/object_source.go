package source

import (
	"context"
	"strings"
)

// ObjectSource is a Source whose events name the object that changed and which can make the
// endpoints of some objects alone, so that an event costs what the objects it names produce instead
// of the whole desired state.
//
// The endpoints of an object of one of ObjectKinds depend on that object alone: ObjectEndpoints for
// its resource label returns exactly the endpoints (and problems) Endpoints returns for it, made by
// the same function. Kinds whose endpoints depend on other objects (a Service's on its pods, nodes
// and on the Services it is merged with) are not listed; their events name no object ("") and cost a
// full plan.
type ObjectSource interface {
	Source
	// ObjectKinds are the resource-label kinds ("ingress") that ObjectEndpoints answers for. It may
	// change while the process runs (a deferred kind starts); a change is signalled by an event
	// naming no object.
	ObjectKinds() []string
	// AddObjectHandler registers fn, called after every change of an object the source reads with
	// the changed object's resource label when its kind is one of ObjectKinds, and with "" when the
	// change may affect any object. It replaces AddEventHandler for callers that use it.
	AddObjectHandler(fn func(resource string))
	// ObjectEndpoints returns the endpoints and problems of the named objects (resource labels of
	// ObjectKinds); an object that no longer exists has none.
	ObjectEndpoints(ctx context.Context, resources []string) (Result, error)
}

// ResourceKind is the kind part of a resource label ("ingress" of "ingress/default/web").
func ResourceKind(resource string) string {
	kind, _, _ := strings.Cut(resource, "/")
	return kind
}

// objectHandlersOf registers fn with src: as an object handler when src is an ObjectSource, else as
// a plain handler that names no object.
func objectHandlersOf(src Source, fn func(resource string)) {
	if o, ok := src.(ObjectSource); ok {
		o.AddObjectHandler(fn)
		return
	}
	src.AddEventHandler(func() { fn("") })
}

// objectKindsOf is src's ObjectKinds, none when it is not an ObjectSource.
func objectKindsOf(src Source) []string {
	if o, ok := src.(ObjectSource); ok {
		return o.ObjectKinds()
	}
	return nil
}
