package azurednsemu

import (
	"maps"
	"slices"
)

// ZoneDump is a zone and its record sets as the emulator holds them.
type ZoneDump struct {
	Subscription        string            `json:"subscription"`
	ResourceGroup       string            `json:"resourceGroup"`
	Name                string            `json:"name"`
	Private             bool              `json:"private,omitempty"`
	ETag                string            `json:"etag,omitempty"`
	Tags                map[string]string `json:"tags,omitempty"`
	RecordSets          []RecordSetDump   `json:"recordSets"`
	VirtualNetworkLinks []SeedLink        `json:"virtualNetworkLinks,omitempty"`
}

// RecordSetDump is one record set, records in zone-file form (see
// SeedRecordSet).
type RecordSetDump struct {
	Name           string            `json:"name"`
	Type           string            `json:"type"`
	TTL            int64             `json:"ttl"`
	Records        []string          `json:"records"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	AutoRegistered bool              `json:"autoRegistered,omitempty"`
	ETag           string            `json:"etag,omitempty"`
}

// Dump returns every zone (public first, then private; each by
// subscription, resource group and name) with its record sets by name and
// type.
func (s *Server) Dump() []ZoneDump {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []ZoneDump{}
	for _, api := range []string{APIDNS, APIPrivateDNS} {
		for _, sub := range sortedKeys(s.st.subs) {
			for _, z := range s.st.zonesIn(api, s.st.subs[sub].id, "") {
				d := ZoneDump{Subscription: z.sub, ResourceGroup: z.rg, Name: z.name, Private: api == APIPrivateDNS, ETag: z.etag, Tags: z.tags, RecordSets: []RecordSetDump{}}
				for _, r := range z.sortedSets() {
					d.RecordSets = append(d.RecordSets, RecordSetDump{Name: r.name, Type: r.typ, TTL: r.ttl, Records: r.records(),
						Metadata: r.metadata, AutoRegistered: r.auto, ETag: r.etag})
				}
				links := make([]*vnetLink, 0, len(z.links))
				for _, l := range z.links {
					links = append(links, l)
				}
				sortLinks(links)
				for _, l := range links {
					d.VirtualNetworkLinks = append(d.VirtualNetworkLinks, SeedLink{Name: l.name, VirtualNetwork: l.virtualNetwork, RegistrationEnabled: l.registrationEnabled})
				}
				out = append(out, d)
			}
		}
	}
	return out
}

// WithoutETags blanks the etags of a dump, for comparing dumps of two runs.
func WithoutETags(d []ZoneDump) []ZoneDump {
	out := make([]ZoneDump, len(d))
	for i, z := range d {
		z.ETag = ""
		sets := make([]RecordSetDump, len(z.RecordSets))
		for j, r := range z.RecordSets {
			r.ETag = ""
			sets[j] = r
		}
		z.RecordSets = sets
		out[i] = z
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
