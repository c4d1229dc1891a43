package plan

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// Input is everything Calculate needs. Calculate reads it and never modifies it.
type Input struct {
	// Desired are the endpoints the sources ask for, after AdjustEndpoints.
	Desired []*endpoint.Endpoint
	// Current are the records the registry listed, with ownership folded into their labels.
	Current []*endpoint.Endpoint
	// OwnerID is --txt-owner-id. Only current records whose owner label equals it are updated or
	// deleted. With the noop registry it is "": records without an owner label then count as ours
	// and records with any owner label do not.
	OwnerID string
	// OldOwnerID is --migrate-from-txt-owner: records of that owner count as ours, and each is updated
	// (even when in sync) so that its ownership record names OwnerID from then on.
	OldOwnerID string
	// Policy limits the kinds of change; see Policy for the zero value.
	Policy Policy
	// DomainFilter selects the names to plan; the zero value selects all.
	DomainFilter DomainFilter
	// ManagedRecordTypes is --managed-record-types; empty means A, AAAA and CNAME.
	ManagedRecordTypes []string
	// ExcludeRecordTypes is --exclude-record-types, removed from the managed types.
	ExcludeRecordTypes []string
	// Unreadable are resource kinds ("service") and resource labels ("service/default/db") whose
	// objects the sources could not read (source.Result.Unreadable). Our records whose resource label
	// falls under one are not deleted: the object that owns them may well still exist.
	Unreadable []string
}
