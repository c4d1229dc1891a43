package plan

import "github.com/zonekeeper/zonekeeper/internal/endpoint"

// Result is a plan: the changes to apply and what was left out, with the reason.
type Result struct {
	// Changes is never nil. Each list is sorted by key (name, type, set identifier).
	Changes *Changes
	// Conflicts are desired endpoints that lost a record set to another one, sorted by key.
	Conflicts []Conflict
	// OwnerMismatches are changes dropped because the record set belongs to another owner or to
	// none, sorted by key.
	OwnerMismatches []OwnerMismatch
	// HeldByPolicy are changes to our own records that the policy forbids (deletes under upsert-only
	// and create-only, updates under create-only), sorted by key: what a sync would do and this
	// policy will not, so users see why a record stays.
	HeldByPolicy []HeldChange
}

// HeldChange is a change to one of our records that the policy forbids.
type HeldChange struct {
	Key    endpoint.Key
	Action Action
	// Record is the current record set the change would have touched.
	Record *endpoint.Endpoint
	// Resource is the object the change is for: the desired endpoint's for an update, the record's
	// own (an object that is gone, or no longer asks for the name) for a delete.
	Resource string
	// OwnerMigration: the update would only rewrite the ownership record (--migrate-from-txt-owner).
	OwnerMigration bool
	// Unreadable: the delete is held not by the policy but because the source of the record's object
	// cannot be read (Input.Unreadable).
	Unreadable bool
}

// Conflict is a desired endpoint that lost its record set to another desired endpoint.
type Conflict struct {
	// Key is the key of the losing endpoint, with the name normalised.
	Key endpoint.Key
	// Winner and Loser are the resource labels ("ingress/default/web") of the two endpoints.
	Winner string
	Loser  string
	// Reason says why the winner won, for logs and events.
	Reason string
}

// Action is the kind of a change in a plan.
type Action string

// The kinds of change.
const (
	ActionCreate Action = "CREATE"
	ActionUpdate Action = "UPDATE"
	ActionDelete Action = "DELETE"
)

// OwnerMismatch is a change the plan dropped because the record set it touches, or another record
// set of the same name and set identifier, is not ours.
type OwnerMismatch struct {
	// Key of the record set the change was for, with the name normalised.
	Key    endpoint.Key
	Action Action
	// OwnerID is our owner id; ForeignOwner is the owner label of the record in the way, "" when it
	// has none.
	OwnerID      string
	ForeignOwner string
	// Resource is the resource label of the desired endpoint that wanted the name.
	Resource string
}
