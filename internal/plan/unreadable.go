package plan

import "strings"

// unreadable is Input.Unreadable as sets: resource kinds and whole resource labels.
type unreadable struct {
	kinds, resources map[string]bool
}

func newUnreadable(list []string) unreadable {
	var u unreadable
	for _, s := range list {
		if s == "" {
			continue
		}
		if strings.Contains(s, "/") {
			if u.resources == nil {
				u.resources = map[string]bool{}
			}
			u.resources[s] = true
			continue
		}
		if u.kinds == nil {
			u.kinds = map[string]bool{}
		}
		u.kinds[s] = true
	}
	return u
}

// covers reports whether the object named by a resource label ("service/default/web") is unreadable.
// A record without a resource label is covered by nothing.
func (u unreadable) covers(resource string) bool {
	if resource == "" || (u.kinds == nil && u.resources == nil) {
		return false
	}
	if u.resources[resource] {
		return true
	}
	kind, _, _ := strings.Cut(resource, "/")
	return u.kinds[kind]
}
