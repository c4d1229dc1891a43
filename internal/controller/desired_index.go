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
// of one target whose only label is its object's resource label; the index keeps such an endpoint as
// its name, target, type and TTL alone (the label map was 336 bytes of the about 600 each endpoint
// cost), and a name of one object maps to that object's resource string alone (issue 15). Targets and
// provider-specific properties are shared with the sources' endpoints, which nothing modifies after the
// sources return.
type desiredIndex struct {
	valid bool
	// plain holds the objects of one plainEndpoint; others every other object, as copies of its
	// endpoints (indexed). An object is in one of them at most.
	plain  map[string]plainEndpoint
	others map[string][]endpoint.Endpoint
	// byName is, per plan.NameKey, the one object with an endpoint there; a name several objects have
	// endpoints at is in sharedNames instead, with each of them once.
	byName      map[string]string
	sharedNames map[string][]string
	total       int
}

// plainEndpoint is an object's one endpoint when it has one target, no label but the resource label,
// no set identifier and no provider-specific properties, and a type of plainTypeOf: a map entry of 16
// bytes of key and these 48, in a map sized to a power of two (20,000 objects take 32,768 entries).
type plainEndpoint struct {
	dnsName    string
	target     string
	ttl        endpoint.TTL
	recordType plainType
}

// plainType is the record type of a plainEndpoint, in a byte rather than a string's 16.
type plainType uint8

const (
	plainA plainType = iota + 1
	plainAAAA
	plainCNAME
)

// plainTypeOf is recordType's plainType; 0 for a type a plainEndpoint does not keep.
func plainTypeOf(recordType string) plainType {
	switch recordType {
	case endpoint.RecordTypeA:
		return plainA
	case endpoint.RecordTypeAAAA:
		return plainAAAA
	case endpoint.RecordTypeCNAME:
		return plainCNAME
	}
	return 0
}

func (t plainType) String() string {
	switch t {
	case plainA:
		return endpoint.RecordTypeA
	case plainAAAA:
		return endpoint.RecordTypeAAAA
	case plainCNAME:
		return endpoint.RecordTypeCNAME
	}
	return ""
}

// rebuild indexes a full desired state.
func (x *desiredIndex) rebuild(eps []*endpoint.Endpoint) {
	counts := make(map[string]int, len(eps))
	for _, e := range eps {
		counts[e.Resource()]++
	}
	x.plain = make(map[string]plainEndpoint, len(counts))
	x.others = map[string][]endpoint.Endpoint{}
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

// objects is how many objects the index holds.
func (x *desiredIndex) objects() int { return len(x.plain) + len(x.others) }

// replace sets the endpoints of one object (none: it is gone or publishes nothing).
func (x *desiredIndex) replace(resource string, eps []*endpoint.Endpoint) {
	if old, ok := x.object(resource); ok {
		x.total -= old.len()
		for _, name := range old.names() {
			x.unlink(name, resource)
		}
		delete(x.plain, resource)
		delete(x.others, resource)
	}
	if len(eps) > 0 {
		x.put(resource, eps)
	}
}

// put indexes the endpoints (at least one) of an object the index does not hold.
func (x *desiredIndex) put(resource string, eps []*endpoint.Endpoint) {
	o := indexedObject{resource: resource}
	if e := eps[0]; len(eps) == 1 && isPlain(resource, e) {
		o.plain = plainEndpoint{dnsName: e.DNSName, target: e.Targets[0], ttl: e.RecordTTL, recordType: plainTypeOf(e.RecordType)}
		x.plain[resource] = o.plain
	} else {
		o.all = make([]endpoint.Endpoint, len(eps))
		for i, e := range eps {
			o.all[i] = indexed(resource, e)
		}
		x.others[resource] = o.all
	}
	x.total += len(eps)
	for _, name := range o.names() {
		x.link(name, resource)
	}
}

// isPlain says whether e is kept as a plainEndpoint: indexedObject.endpoint gives it back whole.
func isPlain(resource string, e *endpoint.Endpoint) bool {
	return resource != "" && len(e.Targets) == 1 && plainTypeOf(e.RecordType) != 0 &&
		len(e.Labels) == 1 && e.Labels[endpoint.ResourceLabelKey] == resource &&
		e.SetIdentifier == "" && e.ProviderSpecific == nil
}

// indexed is the copy of e the index keeps under resource: without its label map when that holds
// nothing but the resource label naming resource (restored by indexedObject.endpoint).
func indexed(resource string, e *endpoint.Endpoint) endpoint.Endpoint {
	c := *e
	if resource != "" && len(c.Labels) == 1 && c.Labels[endpoint.ResourceLabelKey] == resource {
		c.Labels = nil
	}
	return c
}

// indexedObject is one object's entry as the index reads it: all, or, when that is nil, plain.
type indexedObject struct {
	resource string
	plain    plainEndpoint
	all      []endpoint.Endpoint
}

func (x *desiredIndex) object(resource string) (indexedObject, bool) {
	if p, ok := x.plain[resource]; ok {
		return indexedObject{resource: resource, plain: p}, true
	}
	all, ok := x.others[resource]
	return indexedObject{resource: resource, all: all}, ok
}

func (o indexedObject) len() int {
	if o.all != nil {
		return len(o.all)
	}
	return 1
}

// name is the DNS name of the object's i-th endpoint.
func (o indexedObject) name(i int) string {
	if o.all != nil {
		return o.all[i].DNSName
	}
	return o.plain.dnsName
}

// endpoint is the object's i-th endpoint as the source made it, a new one the caller may change (but
// not the targets of one kept in all, or a label map other than a restored resource label).
func (o indexedObject) endpoint(i int) *endpoint.Endpoint {
	if o.all == nil {
		p := o.plain
		return &endpoint.Endpoint{DNSName: p.dnsName, Targets: endpoint.Targets{p.target}, RecordType: p.recordType.String(),
			RecordTTL: p.ttl, Labels: endpoint.Labels{endpoint.ResourceLabelKey: o.resource}}
	}
	e := o.all[i]
	if e.Labels == nil && o.resource != "" {
		e.Labels = endpoint.Labels{endpoint.ResourceLabelKey: o.resource}
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
	o, ok := x.object(resource)
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
		o, _ := x.object(r)
		for i := range o.len() {
			if plan.NameKey(o.name(i)) == name {
				out = append(out, o.endpoint(i))
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
