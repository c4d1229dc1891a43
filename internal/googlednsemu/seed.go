package googlednsemu

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// Seed is initial state: projects with their managed zones and record sets.
// Record sets go through the same validation as changes.create, so seeded
// state is always state the real API could hold.
type Seed struct {
	Projects []SeedProject `json:"projects"`
}

// SeedProject is one project; a project with no zones still exists (lists
// are empty rather than 404).
type SeedProject struct {
	ID    string     `json:"id"`
	Zones []SeedZone `json:"zones,omitempty"`
}

// SeedZone is one managed zone. Visibility is "public" (default) or
// "private"; Networks are the private zone's VPC network URLs; a
// PeeringTargetNetwork makes it a peering zone (private, read-only).
type SeedZone struct {
	Name                 string            `json:"name"`
	DNSName              string            `json:"dnsName"`
	Description          string            `json:"description,omitempty"`
	Visibility           string            `json:"visibility,omitempty"`
	Networks             []string          `json:"networks,omitempty"`
	PeeringTargetNetwork string            `json:"peeringTargetNetwork,omitempty"`
	Labels               map[string]string `json:"labels,omitempty"`
	RRSets               []SeedRRSet       `json:"rrsets,omitempty"`
}

// SeedRRSet is a record set; Name may be relative to the zone ("www", "@"
// for the apex) or fully qualified with the trailing dot.
type SeedRRSet struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	TTL     int64    `json:"ttl"`
	Rrdatas []string `json:"rrdatas"`
}

// SeededZone reports the id a seeded zone got.
type SeededZone struct {
	Project string `json:"project"`
	Name    string `json:"name"`
	ID      string `json:"id"`
	DNSName string `json:"dnsName"`
}

// LoadSeedFile reads a Seed from a JSON file, refusing unknown fields.
func LoadSeedFile(path string) (Seed, error) {
	var seed Seed
	b, err := os.ReadFile(path)
	if err != nil {
		return seed, err
	}
	if e := decodeStrict(b, &seed, "seed"); e != nil {
		return seed, fmt.Errorf("seed file %s: %s", path, e.message)
	}
	return seed, nil
}

// AddProject creates an empty project (nothing happens if it exists).
func (s *Server) AddProject(id string) error {
	_, err := s.Seed(Seed{Projects: []SeedProject{{ID: id}}})
	return err
}

var (
	zoneNameRE  = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
	projectIDRE = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$|^[a-z][-a-z0-9.:]{0,62}$`)
)

// Seed creates the projects, zones and record sets of seed. It stops at the
// first invalid item; what was created before it is kept.
func (s *Server) Seed(seed Seed) ([]SeededZone, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []SeededZone{}
	for _, sp := range seed.Projects {
		if !projectIDRE.MatchString(sp.ID) {
			return out, fmt.Errorf("seed project %q: not a project id (lower-case letters, digits and hyphens, starting with a letter)", sp.ID)
		}
		p := s.st.projects[sp.ID]
		if p == nil {
			p = &project{id: sp.ID, zones: map[string]*zone{}}
			s.st.projects[sp.ID] = p
		}
		for _, sz := range sp.Zones {
			z, err := s.createZoneLocked(p, sz)
			if err != nil {
				return out, fmt.Errorf("seed project %s zone %q: %w", sp.ID, sz.Name, err)
			}
			out = append(out, SeededZone{Project: p.id, Name: z.name, ID: formatID(z.id), DNSName: z.dnsName})
		}
	}
	return out, nil
}

func (s *Server) createZoneLocked(p *project, sz SeedZone) (*zone, error) {
	if !zoneNameRE.MatchString(sz.Name) {
		return nil, fmt.Errorf("name: want 1-63 lower-case letters, digits or dashes, starting with a letter and ending with a letter or digit")
	}
	if _, dup := p.zones[sz.Name]; dup {
		return nil, fmt.Errorf("a zone named %s already exists in project %s", sz.Name, p.id)
	}
	dnsName, ok := canonicalName(sz.DNSName)
	if !ok || strings.HasPrefix(dnsName, "*.") {
		return nil, fmt.Errorf("dnsName %q is not a DNS name", sz.DNSName)
	}
	vis := emucontrol.Or(sz.Visibility, "public")
	switch {
	case vis != "public" && vis != "private":
		return nil, fmt.Errorf("visibility %q: want public or private", sz.Visibility)
	case vis == "public" && (len(sz.Networks) > 0 || sz.PeeringTargetNetwork != ""):
		return nil, fmt.Errorf("networks and peeringTargetNetwork need visibility private")
	case slices.Contains(sz.Networks, ""):
		return nil, fmt.Errorf("networks: an empty network URL")
	}
	if len(sz.Description) > 1024 {
		return nil, fmt.Errorf("description is longer than 1024 characters")
	}
	s.st.nextID++
	z := &zone{
		id: s.st.nextID, name: sz.Name, dnsName: dnsName, description: sz.Description, visibility: vis,
		networks: slices.Clone(sz.Networks), peeringTarget: sz.PeeringTargetNetwork,
		labels: sz.Labels, created: nowMillis(s.now()), rrsets: map[rrKey]*rrset{},
	}
	// A new zone holds its SOA and NS record sets, as in Cloud DNS: change 0.
	ns := []string{"ns-gcp-private.googledomains.com."}
	if vis == "public" {
		set := string(rune('a' + z.id%5))
		ns = nil
		for i := 1; i <= 4; i++ {
			ns = append(ns, fmt.Sprintf("ns-cloud-%s%d.googledomains.com.", set, i))
		}
	}
	z.nameServers = ns
	apex := []*rrset{
		{name: dnsName, typ: "NS", ttl: 21600, rrdatas: slices.Clone(ns)},
		{name: dnsName, typ: "SOA", ttl: 21600, rrdatas: []string{ns[0] + " cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300"}},
	}
	for _, r := range apex {
		z.rrsets[r.key()] = r
	}
	z.changes = append(z.changes, &change{id: "0", start: z.created, additions: apex})
	if len(sz.RRSets) > 0 {
		c := &change{id: "1", start: z.created}
		for i, sr := range sz.RRSets {
			name := sr.Name
			switch {
			case name == "@" || name == "":
				name = dnsName
			case !strings.HasSuffix(name, "."):
				name += "." + dnsName
			}
			ttl := sr.TTL
			in := rrsetInput{Name: name, Type: sr.Type, TTL: &ttl, Rrdatas: sr.Rrdatas}
			r, e := buildRRSet(z, in, fmt.Sprintf("rrsets[%d]", i))
			if e != nil {
				return nil, fmt.Errorf("%s", e.message)
			}
			// Seeding may replace the apex SOA and NS sets.
			if cur, ok := z.rrsets[r.key()]; ok && r.name == dnsName && (r.typ == "SOA" || r.typ == "NS") {
				c.deletions = append(c.deletions, cur)
			}
			c.additions = append(c.additions, r)
		}
		next, e := applyChange(z, c)
		if e != nil {
			return nil, fmt.Errorf("%s", e.message)
		}
		z.rrsets = next
		z.changes = append(z.changes, c)
	}
	p.zones[z.name] = z
	return z, nil
}

// ZoneDump is a zone and its record sets, for the control API and tests.
type ZoneDump struct {
	Project    string      `json:"project"`
	Name       string      `json:"name"`
	ID         string      `json:"id,omitempty"`
	DNSName    string      `json:"dnsName"`
	Visibility string      `json:"visibility"`
	Networks   []string    `json:"networks,omitempty"`
	Peering    string      `json:"peeringTargetNetwork,omitempty"`
	RRSets     []RRSetDump `json:"rrsets"`
}

// RRSetDump is one record set; Rrdatas are in stored order.
type RRSetDump struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	TTL     int64    `json:"ttl"`
	Rrdatas []string `json:"rrdatas"`
}

// Dump returns every zone (by project, then name) with its record sets by
// name and type.
func (s *Server) Dump() []ZoneDump {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []ZoneDump{}
	ids := make([]string, 0, len(s.st.projects))
	for id := range s.st.projects {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, pid := range ids {
		for _, z := range s.st.projects[pid].zonesSorted() {
			d := ZoneDump{Project: pid, Name: z.name, ID: formatID(z.id), DNSName: z.dnsName, Visibility: z.visibility,
				Networks: slices.Clone(z.networks), Peering: z.peeringTarget, RRSets: []RRSetDump{}}
			for _, r := range z.rrsetsSorted() {
				d.RRSets = append(d.RRSets, RRSetDump{Name: r.name, Type: r.typ, TTL: r.ttl, Rrdatas: slices.Clone(r.rrdatas)})
			}
			out = append(out, d)
		}
	}
	return out
}

// WithoutIDs returns a copy of dumps with zone ids blanked, for comparing
// two emulators that hold the same zones.
func WithoutIDs(dumps []ZoneDump) []ZoneDump {
	out := slices.Clone(dumps)
	for i := range out {
		out[i].ID = ""
	}
	return out
}
