// Package source turns Kubernetes objects (from informers or from manifests on disk) into the endpoints
// that should exist.
package source

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Result is what a source wants published, and the bad input it skipped.
type Result struct {
	Endpoints []*endpoint.Endpoint
	// Problems name the object and field of every piece of input that was ignored. They never stop the
	// rest of the object's records, nor other objects'.
	Problems []endpoint.Problem
	// Unreadable names what the source could not read this time: a resource kind as it appears in
	// the resource label ("service", "httproute") when the whole source is waiting for its CRD or
	// its RBAC, or one object's resource label ("service/default/db") when a resource that object
	// needs is unreadable. The plan leaves the records they own as they are instead of deleting them.
	Unreadable []string
	// Objects, in an answer to ObjectSource.ObjectEndpoints, are the resource labels of every object
	// the answer makes the endpoints of, when that is more than the objects asked for (a source that
	// merges endpoints across objects makes those sharing a name with them too). Empty: the objects
	// asked for.
	Objects []string
}

// Source produces desired endpoints.
type Source interface {
	// Endpoints computes the desired endpoints from the source's current (cached) state. Every
	// endpoint carries the "resource" label naming its object.
	Endpoints(ctx context.Context) (Result, error)
	// AddEventHandler registers a function called whenever an object the source reads changes.
	AddEventHandler(handler func())
}
