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
// It keeps copies of the sources' endpoints, not the endpoints themselves: the sources' endpoints are
// garbage once the run that indexed them ends. Most objects (an Ingress of one host) make one endpoint
// whose only label is its object's resource label; the index keeps such an object's endpoint inline in
// its map entry, without the label map (336 bytes of the about 600 each endpoint cost), the set
// identifier and the properties it does not have, and names with one object map to that object's
// resource string alone (issue 15). Targets and provider-specific properties are shared with the
// sources' endpoints, which nothing modifies after the sources return.
type desiredIndex struct {
	valid      bool
	byResource map[string]indexedObject
	// byName is, per plan.NameKey, the one object with an endpoint there; a name several objects have
	// endpoints at is in sharedNames instead, with each of them once.
	byName      map[string]string
	sharedNames map[string][]string
	total       int
}

// indexedObject is what the index keeps of one object's endpoints: the one plain endpoint (its only
// label the resource label, no set identifier, no provider-specific properties) in the fields, or, for
// any other object, copies of every endpoint in all.
type indexedObject struct {
	dnsName    string
	targets    endpoint.Targets
	recordType string
	ttl        endpoint.TTL
	all        *[]endpoint.Endpoint
}

// rebuild indexes a full desired state.
func (x *desiredIndex) rebuild(eps []*endpoint.Endpoint) {
	counts := make(map[string]int, len(eps))
	for _, e := range eps {
		counts[e.Resource()]++
	}
	x.byResource = make(map[string]indexedObject, len(counts))
	x.byName = make(map[string]string, len(eps))
	x.sharedNames = map[string][]string{}
	x.total = 0
	group := make(map[string][]*endpoint.Endpoint)
	for _, e := range eps {
		r := e.Resource()
		if counts[r] == 1 {
			x.put(r, []*endpoint.Endpoint{e})
			continue
		}
		list := group[r]
		if list == nil {
			list = make([]*endpoint.Endpoint, 0, counts[r])
		}
		group[r] = append(list, e)
	}
	for r, list := range group {
		x.put(r, list)
	}
	x.valid = true
}

// replace sets the endpoints of one object (none: it is gone or publishes nothing).
func (x *desiredIndex) replace(resource string, eps []*endpoint.Endpoint) {
	if old, ok := x.byResource[resource]; ok {
		x.total -= old.len()
		for _, name := range old.names() {
			x.unlink(name, resource)
		}
		delete(x.byResource, resource)
	}
	if len(eps) > 0 {
		x.put(resource, eps)
	}
}

// put indexes the endpoints (at least one) of an object the index does not hold.
func (x *desiredIndex) put(resource string, eps []*endpoint.Endpoint) {
	var o indexedObject
	if e := eps[0]; len(eps) == 1 && plainEndpoint(resource, e) {
		o = indexedObject{dnsName: e.DNSName, targets: e.Targets, recordType: e.RecordType, ttl: e.RecordTTL}
	} else {
		all := make([]endpoint.Endpoint, len(eps))
		for i, e := range eps {
			all[i] = indexed(resource, e)
		}
		o.all = &all
	}
	x.byResource[resource] = o
	x.total += len(eps)
	for _, name := range o.names() {
		x.link(name, resource)
	}
}

// plainEndpoint says whether e is kept in an indexedObject's fields: endpointAt gives it back whole.
func plainEndpoint(resource string, e *endpoint.Endpoint) bool {
	return resource != "" && len(e.Labels) == 1 && e.Labels[endpoint.ResourceLabelKey] == resource &&
		e.SetIdentifier == "" && e.ProviderSpecific == nil
}

// indexed is the copy of e the index keeps under resource: without its label map when that holds
// nothing but the resource label naming resource (restored by endpoint).
func indexed(resource string, e *endpoint.Endpoint) endpoint.Endpoint {
	c := *e
	if resource != "" && len(c.Labels) == 1 && c.Labels[endpoint.ResourceLabelKey] == resource {
		c.Labels = nil
	}
	return c
}

func (o indexedObject) len() int {
	if o.all != nil {
		return len(*o.all)
	}
	return 1
}

// name is the DNS name of the object's i-th endpoint.
func (o indexedObject) name(i int) string {
	if o.all != nil {
		return (*o.all)[i].DNSName
	}
	return o.dnsName
}

// endpoint is the object's i-th endpoint as the source made it, a new one the caller may change (but
// not its targets, or a label map other than a restored resource label).
func (o indexedObject) endpoint(resource string, i int) *endpoint.Endpoint {
	if o.all == nil {
		return &endpoint.Endpoint{DNSName: o.dnsName, Targets: o.targets, RecordType: o.recordType, RecordTTL: o.ttl,
			Labels: endpoint.Labels{endpoint.ResourceLabelKey: resource}}
	}
	e := (*o.all)[i]
	if e.Labels == nil && resource != "" {
		e.Labels = endpoint.Labels{endpoint.ResourceLabelKey: resource}
	}
	return &e
}

// names are the distinct names (plan.NameKey) of the object's endpoints.
func (o indexedObject) names() []string {
	var names []string
	for i := range o.len() {
		if n := plan.NameKey(o.name(i)); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// link notes that resource has an endpoint at name.
func (x *desiredIndex) link(name, resource string) {
	if list, ok := x.sharedNames[name]; ok {
		x.sharedNames[name] = append(list, resource)
		return
	}
	first, ok := x.byName[name]
	if !ok {
		x.byName[name] = resource
		return
	}
	delete(x.byName, name)
	x.sharedNames[name] = []string{first, resource}
}

// unlink notes that resource has no endpoint at name any more.
func (x *desiredIndex) unlink(name, resource string) {
	list, ok := x.sharedNames[name]
	if !ok {
		if x.byName[name] == resource {
			delete(x.byName, name)
		}
		return
	}
	switch list = slices.DeleteFunc(list, func(r string) bool { return r == resource }); len(list) {
	case 0:
		delete(x.sharedNames, name)
	case 1:
		delete(x.sharedNames, name)
		x.byName[name] = list[0]
	default:
		x.sharedNames[name] = list
	}
}

// names are the names (plan.NameKey) one object has endpoints at.
func (x *desiredIndex) names(resource string) []string {
	o, ok := x.byResource[resource]
	if !ok {
		return nil
	}
	return o.names()
}

// at returns every endpoint at the given names, in no particular order (the plan does not depend on
// its input's order). Each is a new endpoint; a label map other than a restored resource label is the
// index's and, like the targets, must not be modified (the plan does not modify its input).
func (x *desiredIndex) at(names map[string]bool) []*endpoint.Endpoint {
	var out []*endpoint.Endpoint
	add := func(name, r string) {
		o := x.byResource[r]
		for i := range o.len() {
			if plan.NameKey(o.name(i)) == name {
				out = append(out, o.endpoint(r, i))
			}
		}
	}
	for name := range names {
		if r, ok := x.byName[name]; ok {
			add(name, r)
		}
		for _, r := range x.sharedNames[name] {
			add(name, r)
		}
	}
	return out
}
