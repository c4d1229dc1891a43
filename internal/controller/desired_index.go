package controller

import (
	"slices"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// desiredIndex is the desired state by object and by name: what the sources made of each object the
// last time it was asked (by a full plan, or by an event's plan for the objects the event named), and
// which objects ask for each name. An event's plan reads from it the endpoints other objects want at
// the names the event touched.
//
// It keeps copies of the sources' endpoints, one slice of values per object, not the endpoints
// themselves: an endpoint whose only label is its object's resource label is kept without its label
// map (336 bytes of the about 600 each endpoint cost, issue 15), and at gives the label back. The
// sources' endpoints are garbage once the run that indexed them ends. Targets and provider-specific
// properties are shared with the sources' endpoints, which nothing modifies after the sources return.
type desiredIndex struct {
	valid      bool
	byResource map[string][]endpoint.Endpoint
	// byName lists, per plan.NameKey, the objects with an endpoint there, each once.
	byName map[string][]string
	total  int
}

// rebuild indexes a full desired state.
func (x *desiredIndex) rebuild(eps []*endpoint.Endpoint) {
	counts := make(map[string]int, len(eps))
	for _, e := range eps {
		counts[e.Resource()]++
	}
	x.byResource = make(map[string][]endpoint.Endpoint, len(counts))
	x.byName = make(map[string][]string, len(eps))
	x.total = 0
	for _, e := range eps {
		r := e.Resource()
		list := x.byResource[r]
		if list == nil {
			list = make([]endpoint.Endpoint, 0, counts[r])
		}
		x.byResource[r] = append(list, indexed(r, e))
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
	list := make([]endpoint.Endpoint, len(eps))
	for i, e := range eps {
		list[i] = indexed(resource, e)
	}
	x.byResource[resource] = list
	x.link(resource, list)
}

// indexed is the copy of e the index keeps under resource: without its label map when that holds
// nothing but the resource label naming resource (restored by endpointAt).
func indexed(resource string, e *endpoint.Endpoint) endpoint.Endpoint {
	c := *e
	if resource != "" && len(c.Labels) == 1 && c.Labels[endpoint.ResourceLabelKey] == resource {
		c.Labels = nil
	}
	return c
}

// endpointAt is the endpoint the index keeps at list[i] of resource, as the source made it.
func endpointAt(resource string, list []endpoint.Endpoint, i int) *endpoint.Endpoint {
	e := list[i]
	if e.Labels == nil && resource != "" {
		e.Labels = endpoint.Labels{endpoint.ResourceLabelKey: resource}
	}
	return &e
}

func (x *desiredIndex) link(resource string, eps []endpoint.Endpoint) {
	x.total += len(eps)
	for _, name := range namesOf(eps) {
		x.byName[name] = append(x.byName[name], resource)
	}
}

// names are the names (plan.NameKey) one object has endpoints at.
func (x *desiredIndex) names(resource string) []string { return namesOf(x.byResource[resource]) }

// at returns every endpoint at the given names, in no particular order (the plan does not depend on
// its input's order). Each is a new endpoint; a label map other than a restored resource label is the
// index's and, like the targets, must not be modified (the plan does not modify its input).
func (x *desiredIndex) at(names map[string]bool) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	for name := range names {
		for _, r := range x.byName[name] {
			list := x.byResource[r]
			for i := range list {
				if plan.NameKey(list[i].DNSName) == name {
					out = append(out, endpointAt(r, list, i))
				}
			}
		}
	}
	return out
}

// namesOf lists the distinct names of eps.
func namesOf(eps []endpoint.Endpoint) []string {
	var names []string
	for i := range eps {
		if n := plan.NameKey(eps[i].DNSName); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}
