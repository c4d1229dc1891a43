package cloudflareemu

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/emucontrol"
)

// Seed is initial state: zones with their records. Records go through the
// same validation as POST dns_records, so seeded state is always state the
// real API could hold.
type Seed struct {
	Zones []SeedZone `json:"zones"`
}

// SeedZone is one zone to create.
type SeedZone struct {
	ID          string       `json:"id,omitempty"` // 32 hex digits; random when empty
	Name        string       `json:"name"`
	Status      string       `json:"status,omitempty"`      // active (default), pending, initializing, moved
	Plan        string       `json:"plan,omitempty"`        // free (default), pro, business, enterprise
	AccountID   string       `json:"accountId,omitempty"`   // default DefaultAccountID
	AccountName string       `json:"accountName,omitempty"` // default "Emulated account"
	Paused      bool         `json:"paused,omitempty"`
	Records     []SeedRecord `json:"records,omitempty"`
}

// SeedRecord is a record in the API's own request shape.
type SeedRecord struct {
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Content  string          `json:"content,omitempty"`
	TTL      int             `json:"ttl,omitempty"`
	Proxied  bool            `json:"proxied,omitempty"`
	Priority *int            `json:"priority,omitempty"`
	Comment  string          `json:"comment,omitempty"`
	Tags     []string        `json:"tags,omitempty"`
	Data     map[string]any  `json:"data,omitempty"`
	Settings map[string]bool `json:"settings,omitempty"`
}

// SeededZone reports the id a seeded zone got.
type SeededZone struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// LoadSeedFile reads a Seed from a JSON file.
func LoadSeedFile(path string) (Seed, error) {
	var seed Seed
	b, err := os.ReadFile(path)
	if err != nil {
		return seed, err
	}
	if err := json.Unmarshal(b, &seed); err != nil {
		return seed, fmt.Errorf("seed file %s: %w", path, err)
	}
	return seed, nil
}

// AddZone creates an empty active zone on the Free plan and returns its id.
func (s *Server) AddZone(name string) (string, error) {
	z, err := s.Seed(Seed{Zones: []SeedZone{{Name: name}}})
	if err != nil {
		return "", err
	}
	return z[0].ID, nil
}

// Seed creates the zones and records of seed. It stops at the first invalid
// zone or record; zones created before it are kept.
func (s *Server) Seed(seed Seed) ([]SeededZone, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SeededZone
	for i, sz := range seed.Zones {
		z, err := s.createZoneLocked(sz)
		if err != nil {
			return out, fmt.Errorf("seed zone %d (%q): %w", i, sz.Name, err)
		}
		out = append(out, SeededZone{ID: z.id, Name: z.name})
		for j, sr := range sz.Records {
			raw, err := json.Marshal(sr)
			if err != nil {
				return out, fmt.Errorf("seed zone %q record %d: %w", sz.Name, j, err)
			}
			in, e := parseRecordInput(raw, false)
			if e == nil {
				var r *record
				if r, e = buildRecord(z, nil, in, false, s.now()); e == nil {
					if e = checkConflicts(z.records, r); e == nil {
						z.records[r.id] = r
					}
				}
			}
			if e != nil {
				return out, fmt.Errorf("seed zone %q record %d (%s %s): %s", sz.Name, j, sr.Type, sr.Name, e.Error())
			}
		}
	}
	return out, nil
}

func (s *Server) createZoneLocked(sz SeedZone) (*zone, error) {
	name := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(sz.Name)), ".")
	if !validHostname(name) || !strings.Contains(name, ".") {
		return nil, fmt.Errorf("name %q is not a domain name", sz.Name)
	}
	id := strings.ToLower(sz.ID)
	if id == "" {
		id = newID()
	}
	if !isID(id) {
		return nil, fmt.Errorf("id %q is not 32 hexadecimal digits", sz.ID)
	}
	if _, dup := s.st.zones[id]; dup {
		return nil, fmt.Errorf("id %s is already used", id)
	}
	for _, o := range s.st.zones {
		if o.name == name {
			return nil, fmt.Errorf("zone %s already exists (id %s)", name, o.id)
		}
	}
	status := emucontrol.Or(sz.Status, "active")
	switch status {
	case "active", "pending", "initializing", "moved":
	default:
		return nil, fmt.Errorf("status %q: want active, pending, initializing or moved", sz.Status)
	}
	plan := emucontrol.Or(sz.Plan, "free")
	if _, ok := plans[plan]; !ok {
		return nil, fmt.Errorf("plan %q: want free, pro, business or enterprise", sz.Plan)
	}
	z := &zone{
		id: id, name: name, status: status, plan: plan, paused: sz.Paused,
		accountID: emucontrol.Or(sz.AccountID, DefaultAccountID), accountName: emucontrol.Or(sz.AccountName, "Emulated account"),
		createdOn: s.now(), records: map[string]*record{},
		custom: map[string]*customHostname{}, regional: map[string]*regionalHostname{},
	}
	s.st.zones[id] = z
	return z, nil
}

// ZoneDump is a zone and its records, for the control API and tests.
type ZoneDump struct {
	ID      string       `json:"id"`
	Name    string       `json:"name"`
	Plan    string       `json:"plan"`
	Records []RecordDump `json:"records"`
	// CustomHostnames and RegionalHostnames are sorted by hostname.
	CustomHostnames   []HostnameDump `json:"customHostnames,omitempty"`
	RegionalHostnames []HostnameDump `json:"regionalHostnames,omitempty"`
}

// HostnameDump is a custom hostname (with its custom origin server) or a
// regional hostname (with its region key).
type HostnameDump struct {
	ID                 string `json:"id,omitempty"`
	Hostname           string `json:"hostname"`
	CustomOriginServer string `json:"customOriginServer,omitempty"`
	RegionKey          string `json:"regionKey,omitempty"`
}

// RecordDump is one record with every stored field except timestamps.
type RecordDump struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Content  string          `json:"content"`
	TTL      int             `json:"ttl"`
	Proxied  bool            `json:"proxied"`
	Priority *int            `json:"priority,omitempty"`
	Data     map[string]any  `json:"data,omitempty"`
	Comment  string          `json:"comment,omitempty"`
	Tags     []string        `json:"tags,omitempty"`
	Settings map[string]bool `json:"settings,omitempty"`
}

// Dump returns every zone (by name) with its records sorted by name, type and
// content, so two emulators holding the same records dump equal values
// once ids are blanked (see WithoutIDs).
func (s *Server) Dump() []ZoneDump {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []ZoneDump{}
	for _, z := range s.st.zonesSorted() {
		d := ZoneDump{ID: z.id, Name: z.name, Plan: z.plan, Records: []RecordDump{}}
		for _, r := range z.records {
			rd := RecordDump{ID: r.id, Name: r.name, Type: r.typ, Content: r.content, TTL: r.ttl, Proxied: r.proxied,
				Comment: r.comment, Tags: append([]string(nil), r.tags...)}
			if r.priority != nil {
				p := *r.priority
				rd.Priority = &p
			}
			if r.data != nil {
				rd.Data = r.data.render(r.typ)
			}
			if len(r.settings) > 0 {
				rd.Settings = map[string]bool{}
				for k, v := range r.settings {
					rd.Settings[k] = v
				}
			}
			sort.Strings(rd.Tags)
			d.Records = append(d.Records, rd)
		}
		sort.Slice(d.Records, func(i, j int) bool {
			a, b := d.Records[i], d.Records[j]
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			if a.Type != b.Type {
				return a.Type < b.Type
			}
			if a.Content != b.Content {
				return a.Content < b.Content
			}
			return a.ID < b.ID
		})
		for _, c := range z.custom {
			d.CustomHostnames = append(d.CustomHostnames, HostnameDump{ID: c.id, Hostname: c.hostname, CustomOriginServer: c.originServer})
		}
		sort.Slice(d.CustomHostnames, func(i, j int) bool { return d.CustomHostnames[i].Hostname < d.CustomHostnames[j].Hostname })
		for _, h := range z.regional {
			d.RegionalHostnames = append(d.RegionalHostnames, HostnameDump{Hostname: h.hostname, RegionKey: h.regionKey})
		}
		sort.Slice(d.RegionalHostnames, func(i, j int) bool { return d.RegionalHostnames[i].Hostname < d.RegionalHostnames[j].Hostname })
		out = append(out, d)
	}
	return out
}

// WithoutIDs returns a copy of dumps with zone and record ids blanked, for
// comparing two emulators that created the same records.
func WithoutIDs(dumps []ZoneDump) []ZoneDump {
	out := make([]ZoneDump, len(dumps))
	for i, d := range dumps {
		d.ID = ""
		recs := make([]RecordDump, len(d.Records))
		for j, r := range d.Records {
			r.ID = ""
			recs[j] = r
		}
		d.Records = recs
		custom := make([]HostnameDump, len(d.CustomHostnames))
		for j, c := range d.CustomHostnames {
			c.ID = ""
			custom[j] = c
		}
		if len(custom) > 0 {
			d.CustomHostnames = custom
		}
		out[i] = d
	}
	return out
}
