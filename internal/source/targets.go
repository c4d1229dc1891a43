package source

import (
	"fmt"
	"sort"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// targets are validated record targets grouped by the record type they call for.
type targets struct {
	a, aaaa, cname []string
}

// add validates a raw target and files it under its type; a bad one becomes a Problem on field.
func (t *targets) add(o *objectInput, field, raw string) {
	t.addNamed(o, func() string { return field }, raw)
}

// addIndexed is add for a field named by format and one index ("status.loadBalancer.ingress[%d].ip"),
// formatted only for a problem: every source pass adds every target of every object.
func (t *targets) addIndexed(o *objectInput, format string, i int, raw string) {
	t.addNamed(o, func() string { return fmt.Sprintf(format, i) }, raw)
}

func (t *targets) addNamed(o *objectInput, field func() string, raw string) {
	n, rt, err := endpoint.ClassifyTarget(raw)
	if err != nil {
		o.problem(field(), raw, err.Error())
		return
	}
	if n == raw {
		// Nearly always the object's own spelling is the normalised one: keep its string, not the one
		// normalising rendered, so the endpoints (and the controller's index of them, which outlives
		// the run) share the cached object's copy instead of holding one more each (issue 15).
		n = raw
	}
	t.addValid(n, rt)
}

// addValid files an already normalised target.
func (t *targets) addValid(normalized, recordType string) {
	switch recordType {
	case endpoint.RecordTypeA:
		t.a = appendUnique(t.a, normalized)
	case endpoint.RecordTypeAAAA:
		t.aaaa = appendUnique(t.aaaa, normalized)
	case endpoint.RecordTypeCNAME:
		t.cname = appendUnique(t.cname, normalized)
	}
}

func (t *targets) addAll(u targets) {
	for _, v := range u.a {
		t.a = appendUnique(t.a, v)
	}
	for _, v := range u.aaaa {
		t.aaaa = appendUnique(t.aaaa, v)
	}
	for _, v := range u.cname {
		t.cname = appendUnique(t.cname, v)
	}
}

func (t targets) empty() bool { return len(t.a)+len(t.aaaa)+len(t.cname) == 0 }

// appendUnique appends v unless present. Target lists are short, so a scan beats a map.
func appendUnique(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// recordMeta is what every endpoint of one object carries besides its name and targets.
type recordMeta struct {
	resource         string
	ttl              endpoint.TTL
	setIdentifier    string
	providerSpecific endpoint.ProviderSpecific
}

// endpointsFor returns one endpoint per record type that has targets.
func (m *recordMeta) endpointsFor(name string, t targets) []*endpoint.Endpoint {
	n := 0
	for _, l := range [...][]string{t.a, t.aaaa, t.cname} {
		if len(l) > 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	// One allocation for the endpoints of a name: this loop runs for every host of every object.
	backing := make([]endpoint.Endpoint, n)
	out := make([]*endpoint.Endpoint, 0, n)
	for _, g := range [...]struct {
		recordType string
		values     []string
	}{{endpoint.RecordTypeA, t.a}, {endpoint.RecordTypeAAAA, t.aaaa}, {endpoint.RecordTypeCNAME, t.cname}} {
		if len(g.values) == 0 {
			continue
		}
		ep := &backing[len(out)]
		m.fill(ep, name, g.recordType, g.values)
		out = append(out, ep)
	}
	return out
}

func (m *recordMeta) newEndpoint(name, recordType string, values []string) *endpoint.Endpoint {
	ep := &endpoint.Endpoint{}
	m.fill(ep, name, recordType, values)
	return ep
}

func (m *recordMeta) fill(ep *endpoint.Endpoint, name, recordType string, values []string) {
	ts := make(endpoint.Targets, len(values))
	copy(ts, values)
	sort.Strings(ts)
	*ep = endpoint.Endpoint{
		DNSName:       name,
		Targets:       ts,
		RecordType:    recordType,
		SetIdentifier: m.setIdentifier,
		RecordTTL:     m.ttl,
		Labels:        endpoint.Labels{endpoint.ResourceLabelKey: m.resource},
	}
	if len(m.providerSpecific) > 0 {
		// Each endpoint gets its own copy: later stages edit properties in place.
		ep.ProviderSpecific = append(endpoint.ProviderSpecific(nil), m.providerSpecific...)
	}
}

// mergeEndpoints merges endpoints sharing a key (name, type, set identifier) into the first one,
// uniting their targets, as external-dns's MergeEndpoints does. Order of first appearance is kept.
func mergeEndpoints(eps []*endpoint.Endpoint) []*endpoint.Endpoint {
	if len(eps) < 2 {
		return eps
	}
	index := make(map[endpoint.Key]int, len(eps))
	out := eps[:0:0]
	for _, ep := range eps {
		k := ep.Key()
		i, seen := index[k]
		if !seen {
			index[k] = len(out)
			out = append(out, ep)
			continue
		}
		first := out[i]
		changed := false
		for _, t := range ep.Targets {
			before := len(first.Targets)
			first.Targets = appendUnique(first.Targets, t)
			changed = changed || len(first.Targets) != before
		}
		if changed {
			sort.Strings(first.Targets)
		}
	}
	return out
}
