package source

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// mergedObjects lets a source that merges endpoints sharing a key across its objects (as
// external-dns's MergeEndpoints does for Services) make the endpoints of some objects without making
// everyone's. The merged endpoint at a name depends on every object with an endpoint there, so it
// remembers the names each object's own endpoints had when last made; asked for some objects, it
// makes them again together with every object that shares a name with them, old or new, and so on
// until no object outside shares a name with the set. The merge of that closed set, in the order
// Endpoints merges, is what Endpoints makes at those names: one merge function, one per-object
// function, no second idea of what an object produces.
type mergedObjects struct {
	mu sync.Mutex
	// valid: names holds what the last Endpoints made (before it, only a full call can answer).
	valid bool
	// names are the distinct DNS names of each object's own endpoints; objects the objects with
	// endpoints at each name.
	names   map[string]*objectNames
	objects map[string][]string
	// pass counts full listings, to find the objects the last one no longer made.
	pass uint64
}

type objectNames struct {
	names []string
	pass  uint64
}

// maxMergedObjects bounds one answer: an event whose objects share names with more objects than
// this is cheaper as a full plan.
const maxMergedObjects = 4096

// ownEndpoints makes the endpoints of one object, unmerged with other objects' (found false: the
// object is gone).
type ownEndpoints func(resource string, problems *Problems) (eps []*endpoint.Endpoint, found bool, err error)

// remember records, in a full Endpoints, the names of every object's own endpoints: eps are all of
// them before the merge across objects, each object's together. It allocates only for names that
// changed.
func (m *mergedObjects) remember(eps []*endpoint.Endpoint) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.valid {
		m.names = map[string]*objectNames{}
		m.objects = map[string][]string{}
	}
	m.pass++
	for i := 0; i < len(eps); {
		r := eps[i].Resource()
		j := i + 1
		for j < len(eps) && eps[j].Resource() == r {
			j++
		}
		m.set(r, eps[i:j])
		i = j
	}
	for r, o := range m.names {
		if o.pass != m.pass {
			m.set(r, nil)
		}
	}
	m.valid = true
}

// set replaces one object's names, and marks it made in this pass.
func (m *mergedObjects) set(resource string, eps []*endpoint.Endpoint) {
	o := m.names[resource]
	if o != nil && sameNames(o.names, eps) {
		o.pass = m.pass
		return
	}
	if o != nil {
		for _, n := range o.names {
			list := slices.DeleteFunc(m.objects[n], func(r string) bool { return r == resource })
			if len(list) == 0 {
				delete(m.objects, n)
			} else {
				m.objects[n] = list
			}
		}
	}
	var names []string
	for _, e := range eps {
		if !slices.Contains(names, e.DNSName) {
			names = append(names, e.DNSName)
		}
	}
	if len(names) == 0 {
		delete(m.names, resource)
		return
	}
	m.names[resource] = &objectNames{names: names, pass: m.pass}
	for _, n := range names {
		m.objects[n] = append(m.objects[n], resource)
	}
}

// sameNames says whether eps has exactly the distinct names names (in first-appearance order).
func sameNames(names []string, eps []*endpoint.Endpoint) bool {
	i := 0
	for _, e := range eps {
		if i > 0 && slices.Contains(names[:i], e.DNSName) {
			continue
		}
		if i >= len(names) || names[i] != e.DNSName {
			return false
		}
		i++
	}
	return i == len(names)
}

// endpointsOf answers ObjectEndpoints for a merging source: the merged endpoints of the named objects
// and of every object sharing a name with them (transitively), and in Objects every object it made.
// less orders objects as Endpoints merges them.
func (m *mergedObjects) endpointsOf(ctx context.Context, resources []string, own ownEndpoints, less func(a, b string) int) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.valid {
		return Result{}, fmt.Errorf("the endpoints of single objects are known after the first full listing")
	}
	var problems Problems
	made := map[string][]*endpoint.Endpoint{}
	queue := slices.Clone(resources)
	in := map[string]bool{}
	for _, r := range resources {
		in[r] = true
	}
	add := func(names []string) {
		for _, n := range names {
			for _, other := range m.objects[n] {
				if !in[other] {
					in[other] = true
					queue = append(queue, other)
				}
			}
		}
	}
	for len(queue) > 0 {
		if len(in) > maxMergedObjects {
			return Result{}, fmt.Errorf("more than %d objects share names with the changed ones", maxMergedObjects)
		}
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		r := queue[0]
		queue = queue[1:]
		eps, found, err := own(r, &problems)
		if err != nil {
			return Result{}, err
		}
		if found {
			made[r] = eps
		}
		if o := m.names[r]; o != nil {
			add(o.names)
		}
		for _, e := range eps {
			add([]string{e.DNSName})
		}
	}
	objects := make([]string, 0, len(in))
	for r := range in {
		objects = append(objects, r)
	}
	slices.SortFunc(objects, less)
	var eps []*endpoint.Endpoint
	for _, r := range objects {
		m.set(r, made[r])
		eps = append(eps, made[r]...)
	}
	return Result{Endpoints: mergeEndpoints(eps), Problems: problems.Items(), Objects: objects}, nil
}

// MergedObjects is mergedObjects for sources outside this package (Gateway API routes): Remember in
// Endpoints with every object's own endpoints before the merge, EndpointsOf in ObjectEndpoints.
type MergedObjects struct{ m mergedObjects }

// Remember records the names of every object's own endpoints; eps hold each object's together.
func (x *MergedObjects) Remember(eps []*endpoint.Endpoint) { x.m.remember(eps) }

// EndpointsOf answers ObjectEndpoints: the named objects and every object sharing a name with them,
// made by own and merged in namespace/name order, as MergeEndpoints merges a sorted listing.
func (x *MergedObjects) EndpointsOf(ctx context.Context, resources []string, own func(resource string, problems *Problems) ([]*endpoint.Endpoint, bool, error)) (Result, error) {
	return x.m.endpointsOf(ctx, resources, own, compareNamespacedResources)
}

// compareNamespacedResources orders "kind/namespace/name" labels of one kind as objectLess orders
// their objects: by namespace, then name.
func compareNamespacedResources(a, b string) int {
	_, na, ea := endpoint.SplitResource(a)
	_, nb, eb := endpoint.SplitResource(b)
	if na != nb {
		if na < nb {
			return -1
		}
		return 1
	}
	switch {
	case ea < eb:
		return -1
	case ea > eb:
		return 1
	}
	return 0
}
