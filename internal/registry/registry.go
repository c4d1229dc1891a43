// Package registry decides who owns which record. The TXT registry stores ownership beside each record
// in external-dns's format.
package registry

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// Registry wraps a provider: Records returns the provider's records with ownership folded into their
// labels (owner, resource) and the ownership records themselves hidden; ApplyChanges writes the
// ownership records alongside the changes.
type Registry interface {
	Records(ctx context.Context) ([]*endpoint.Endpoint, error)
	ApplyChanges(ctx context.Context, changes *plan.Changes) error
	OwnerID() string
}
