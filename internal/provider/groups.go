package provider

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// OwnershipGroups partitions the record set changes of one call into groups that a provider must
// apply together (in one batch, or on the same side of a split), so that a record never lands without
// its ownership TXT or loses it while staying. names[i] is the normalised name of eps[i] (the two
// slices are parallel). Changes at the same name are one group. An ownership TXT joins the group of
// the record it guards: the TXT registry labels a TXT it creates or updates with
// ownedRecord=<record name>; a TXT being deleted comes from a listing without labels, so it joins a
// record of the same call whose resource label its value names ("external-dns/resource=…") and whose
// first label its name contains (a-www, prefix_cname-www, www-suffix, …).
//
// The result gives each change its group number; groups are numbered in the order in which their
// first change appears.
func OwnershipGroups(names []string, eps []*endpoint.Endpoint) []int {
	parent := make([]int, len(names))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra < rb {
			parent[rb] = ra
		} else if rb < ra {
			parent[ra] = rb
		}
	}
	byName := map[string]int{}
	byResource := map[string][]int{}
	for i, name := range names {
		if j, ok := byName[name]; ok {
			union(i, j)
		} else {
			byName[name] = i
		}
		if eps[i].RecordType != endpoint.RecordTypeTXT {
			if r := eps[i].Labels[endpoint.ResourceLabelKey]; r != "" {
				byResource[r] = append(byResource[r], i)
			}
		}
	}
	for i, ep := range eps {
		if ep.RecordType != endpoint.RecordTypeTXT {
			continue
		}
		if owned := ep.Labels[endpoint.OwnedRecordLabelKey]; owned != "" {
			if j, ok := byName[strings.ToLower(strings.TrimSuffix(owned, "."))]; ok {
				union(i, j)
			}
			continue
		}
		for _, r := range resourcesIn(ep.Targets) {
			for _, j := range byResource[r] {
				if strings.Contains(names[i], firstLabel(names[j])) {
					union(i, j)
				}
			}
		}
	}
	out := make([]int, len(names))
	number := map[int]int{}
	for i := range names {
		root := find(i)
		n, ok := number[root]
		if !ok {
			n = len(number)
			number[root] = n
		}
		out[i] = n
	}
	return out
}

// resourcesIn returns the object references of ownership TXT values.
func resourcesIn(targets []string) []string {
	var out []string
	for _, t := range targets {
		const key = "external-dns/resource="
		i := strings.Index(t, key)
		if i < 0 {
			continue
		}
		r := t[i+len(key):]
		if j := strings.IndexAny(r, `,"`); j >= 0 {
			r = r[:j]
		}
		out = append(out, r)
	}
	return out
}

func firstLabel(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// CanonicalTXT returns eps with every TXT target put through canonical (the form the provider's
// Records returns once written), for providers' AdjustEndpoints. Endpoints that change are copied; the
// argument is not modified.
func CanonicalTXT(eps []*endpoint.Endpoint, canonical func(string) string) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, len(eps))
	for i, e := range eps {
		out[i] = e
		if e.RecordType != endpoint.RecordTypeTXT {
			continue
		}
		for j, t := range e.Targets {
			if c := canonical(t); c != t {
				if out[i] == e {
					out[i] = e.DeepCopy()
				}
				out[i].Targets[j] = c
			}
		}
	}
	return out
}
