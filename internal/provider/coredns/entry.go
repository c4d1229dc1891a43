package coredns

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// entry is one decoded key/value pair.
type entry struct {
	key     string
	name    string
	raw     []byte
	records []record
}

// decodeEntry decodes a key/value pair read under the prefix. It returns false for keys that are not
// records of a name zonekeeper may list: undecodable JSON, keys that map to no name, values with
// neither host nor text, and the names CoreDNS reserves (apex.dns, ns.dns).
func (l keyLayout) decodeEntry(key string, value []byte) (entry, bool) {
	v, recs, err := decodeValue(value)
	if err != nil || len(recs) == 0 {
		return entry{}, false
	}
	name, ok := l.nameOf(key, v.TargetStrip)
	if !ok || reservedName(name) {
		return entry{}, false
	}
	return entry{key: key, name: name, raw: value, records: recs}, true
}

// recordSets groups the records of entries into endpoints, one per (name, type), with targets in key
// order and without duplicates. TTL and group come from the first entry of the set; zonekeeper writes
// them the same on every entry.
func recordSets(entries []entry) []*endpoint.Endpoint {
	type setKey struct{ name, recordType string }
	index := map[setKey]*endpoint.Endpoint{}
	var out []*endpoint.Endpoint
	for _, e := range entries {
		for _, r := range e.records {
			k := setKey{e.name, r.Type}
			ep, ok := index[k]
			if !ok {
				ep = endpoint.NewWithTTL(e.name, r.Type, r.TTL)
				if r.Group != "" {
					ep.SetProviderSpecific(GroupProperty, r.Group)
				}
				index[k] = ep
				out = append(out, ep)
			}
			if !containsTarget(ep.Targets, r.Target) {
				ep.Targets = append(ep.Targets, r.Target)
			}
		}
	}
	endpoint.SortEndpoints(out)
	return out
}

func containsTarget(ts endpoint.Targets, t string) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// isApexMirror reports whether a key holds a copy of apex records for CoreDNS's apex lookup.
func (p *Provider) isApexMirror(key string) bool {
	for _, z := range p.zones {
		if strings.HasPrefix(key, p.layout.apexMirrorDir(z)) {
			return true
		}
	}
	return false
}
