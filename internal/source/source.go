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
}

// Source produces desired endpoints.
type Source interface {
	// Endpoints computes the desired endpoints from the source's current (cached) state. Every
	// endpoint carries the "resource" label naming its object.
	Endpoints(ctx context.Context) (Result, error)
	// AddEventHandler registers a function called whenever an object the source reads changes.
	AddEventHandler(handler func())
}
