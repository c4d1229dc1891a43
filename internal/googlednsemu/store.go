package googlednsemu

import (
	"sort"
	"time"
)

// state is everything the emulator holds, by project.
type state struct {
	projects map[string]*project
	nextID   uint64 // managed zone ids are unique across projects, as Google's are
}

func newState() *state { return &state{projects: map[string]*project{}, nextID: 1000000000000000000} }

// project is a Google Cloud project with its managed zones.
type project struct {
	id    string
	zones map[string]*zone // by zone name
}

// zone is one managed zone. A private zone has networks; a peering zone is
// private and has a peering target network, and holds no records a client
// may change.
type zone struct {
	id            uint64
	name          string
	dnsName       string // fully qualified, lower case, with the trailing dot
	description   string
	visibility    string // public or private
	networks      []string
	peeringTarget string
	labels        map[string]string
	nameServers   []string
	created       time.Time
	rrsets        map[rrKey]*rrset
	changes       []*change // index i has id strconv.Itoa(i)
}

// rrKey identifies a record set: Cloud DNS holds one set per name and type.
type rrKey struct {
	name string
	typ  string
}

// rrset is one resource record set as stored.
type rrset struct {
	name    string
	typ     string
	ttl     int64
	rrdatas []string
}

func (r *rrset) key() rrKey { return rrKey{r.name, r.typ} }

func (r *rrset) clone() *rrset {
	c := *r
	c.rrdatas = append([]string(nil), r.rrdatas...)
	return &c
}

// change is one accepted change, kept for changes.get.
type change struct {
	id        string
	start     time.Time
	additions []*rrset
	deletions []*rrset
}

// zonesSorted returns the project's zones by name: the order of
// managedZones.list.
func (p *project) zonesSorted() []*zone {
	out := make([]*zone, 0, len(p.zones))
	for _, z := range p.zones {
		out = append(out, z)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// rrsetsSorted returns the zone's record sets by name, then type: the order
// of resourceRecordSets.list.
func (z *zone) rrsetsSorted() []*rrset {
	out := make([]*rrset, 0, len(z.rrsets))
	for _, r := range z.rrsets {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return rrLess(out[i].key(), out[j].key()) })
	return out
}

func rrLess(a, b rrKey) bool {
	if a.name != b.name {
		return a.name < b.name
	}
	return a.typ < b.typ
}

// findZone looks a zone up by name or by numeric id, as the API's
// managedZone parameter allows both.
func (p *project) findZone(ref string) *zone {
	if z, ok := p.zones[ref]; ok {
		return z
	}
	for _, z := range p.zones {
		if formatID(z.id) == ref {
			return z
		}
	}
	return nil
}
