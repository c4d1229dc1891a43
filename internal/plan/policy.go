package plan

import "fmt"

// Policy says which kinds of change a plan may contain (--policy).
//
// The zero value, and any value ParsePolicy would reject, behaves like PolicyCreateOnly: a caller that
// forgets to choose a policy can add records but never change or remove one.
type Policy string

// The policies external-dns accepts.
const (
	// PolicySync creates, updates and deletes.
	PolicySync Policy = "sync"
	// PolicyUpsertOnly creates and updates, never deletes.
	PolicyUpsertOnly Policy = "upsert-only"
	// PolicyCreateOnly only creates.
	PolicyCreateOnly Policy = "create-only"
)

// ParsePolicy returns the policy named by a --policy value.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case PolicySync, PolicyUpsertOnly, PolicyCreateOnly:
		return p, nil
	case "":
		return "", fmt.Errorf("no policy given: choose one of %q, %q or %q", PolicySync, PolicyUpsertOnly, PolicyCreateOnly)
	default:
		return "", fmt.Errorf("unknown policy %q: choose one of %q, %q or %q", s, PolicySync, PolicyUpsertOnly, PolicyCreateOnly)
	}
}

// allowsUpdates reports whether the policy keeps updates.
func (p Policy) allowsUpdates() bool { return p == PolicySync || p == PolicyUpsertOnly }

// allowsDeletes reports whether the policy keeps deletes.
func (p Policy) allowsDeletes() bool { return p == PolicySync }
