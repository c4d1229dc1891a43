package controller

import (
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// desiredIndex is the desired state by object and by name: what the sources made of each object the
// last time it was asked (by a full plan, or by an event's plan for the objects the event named), and
// which objects ask for each name. An event's plan reads from it the endpoints other objects want at
// the names the event touched. It holds the sources' endpoints themselves, not copies.
type desiredIndex struct {
	valid      bool
	byResource map[string][]*endpoint.Endpoint
	// byName lists, per plan.NameKey, the objects with an endpoint there, each once.
	byName map[string][]string
	total  int
}

// rebuild indexes a full desired state.
func (x *desiredIndex) rebuild(eps []*endpoint.Endpoint) {
	x.byResource = make(map[string][]*endpoint.Endpoint, len(eps))
	x.byName = make(map[string][]string, len(eps))
	x.total = 0
	for _, e := range eps {
		r := e.Resource()
		x.byResource[r] = append(x.byResource[r], e)
	}
	for r, list := range x.byResource {
		x.link(r, list)
	}
	x.valid = true
}

// replace sets the endpoints of one object (none: it is gone or publishes nothing).
func (x *desiredIndex) replace(resource string, eps []*endpoint.Endpoint) {
	old := x.byResource[resource]
	x.total -= len(old)
	for _, name := range namesOf(old) {
		list := slices.DeleteFunc(x.byName[name], func(r string) bool { return r == resource })
		if len(list) == 0 {
			delete(x.byName, name)
		} else {
			x.byName[name] = list
		}
	}
	if len(eps) == 0 {
		delete(x.byResource, resource)
		return
	}
	x.byResource[resource] = eps
	x.link(resource, eps)
}

func (x *desiredIndex) link(resource string, eps []*endpoint.Endpoint) {
	x.total += len(eps)
	for _, name := range namesOf(eps) {
		x.byName[name] = append(x.byName[name], resource)
	}
}

// names are the names (plan.NameKey) one object has endpoints at.
func (x *desiredIndex) names(resource string) []string { return namesOf(x.byResource[resource]) }

// at returns every endpoint at the given names, in no particular order (the plan does not depend on
// its input's order).
func (x *desiredIndex) at(names map[string]bool) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for name := range names {
		for _, r := range x.byName[name] {
			for _, e := range x.byResource[r] {
				if plan.NameKey(e.DNSName) == name {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// namesOf lists the distinct names of eps.
func namesOf(eps []*endpoint.Endpoint) []string {
	var names []string
	for _, e := range eps {
		if n := plan.NameKey(e.DNSName); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}
