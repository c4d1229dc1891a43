package dnsserver

import (
	"cmp"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
)

// view is one version of the zones, served to the clients it matches.
type view struct {
	name string
	mu   sync.Mutex // serialises writers; readers only load snap
	snap atomic.Pointer[snapshot]
}

// viewRoute maps a client subnet to its view.
type viewRoute struct {
	prefix netip.Prefix
	view   *view
}

// viewTable selects the view of a client: the longest matching prefix wins, else the default view.
type viewTable struct {
	routes []viewRoute // longest prefix first
	def    *view
	byName map[string]*view
}

func newViewTable(cfg *Config) *viewTable {
	t := &viewTable{byName: map[string]*view{}}
	for _, vc := range cfg.Views {
		v := &view{name: vc.Name}
		t.byName[vc.Name] = v
		for _, p := range vc.Subnets {
			t.routes = append(t.routes, viewRoute{prefix: p, view: v})
		}
	}
	t.def = t.byName[cfg.DefaultView]
	// Longest prefix first; IPv4 and IPv6 prefixes never match the same address, so their relative
	// order does not matter. Ties keep the configuration order.
	slices.SortStableFunc(t.routes, func(a, b viewRoute) int { return cmp.Compare(b.prefix.Bits(), a.prefix.Bits()) })
	return t
}

// pick returns the view for a client address.
func (t *viewTable) pick(client netip.Addr) *view {
	client = client.Unmap()
	for i := range t.routes {
		if t.routes[i].prefix.Contains(client) {
			return t.routes[i].view
		}
	}
	return t.def
}
