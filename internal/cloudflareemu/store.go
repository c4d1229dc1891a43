package cloudflareemu

import (
	"crypto/rand"
	"encoding/hex"
	"sort"
	"time"
)

// state is everything the emulator holds.
type state struct {
	zones map[string]*zone // by id
}

func newState() *state { return &state{zones: map[string]*zone{}} }

// zone is one Cloudflare zone with its records and hostnames.
type zone struct {
	id          string
	name        string
	status      string
	plan        string // free, pro, business, enterprise
	accountID   string
	accountName string
	paused      bool
	createdOn   time.Time
	records     map[string]*record // by id
	custom      map[string]*customHostname
	regional    map[string]*regionalHostname // by hostname
}

// record is one DNS record as stored. Content is the canonical text form;
// data holds the structured form for SRV, CAA and TLSA.
type record struct {
	id                string
	name              string
	typ               string
	content           string
	ttl               int
	proxied           bool
	priority          *int // MX only
	data              *recordData
	comment           string
	tags              []string
	settings          map[string]bool
	privateRouting    bool
	createdOn         time.Time
	modifiedOn        time.Time
	commentModifiedOn time.Time
	tagsModifiedOn    time.Time
}

func (r *record) clone() *record {
	c := *r
	if r.priority != nil {
		p := *r.priority
		c.priority = &p
	}
	if r.data != nil {
		d := *r.data
		c.data = &d
	}
	c.tags = append([]string(nil), r.tags...)
	if r.settings != nil {
		c.settings = map[string]bool{}
		for k, v := range r.settings {
			c.settings[k] = v
		}
	}
	return &c
}

// newID returns 32 lowercase hex digits, the shape of every Cloudflare id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isID reports whether s has the shape of a Cloudflare id.
func isID(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// zonesSorted returns zones by name, then id: the order of GET /zones.
func (st *state) zonesSorted() []*zone {
	out := make([]*zone, 0, len(st.zones))
	for _, z := range st.zones {
		out = append(out, z)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].id < out[j].id
	})
	return out
}

// recordsSorted returns the zone's records by type, name, content, id: a
// stable order for listing and dumps.
func (z *zone) recordsSorted() []*record {
	out := make([]*record, 0, len(z.records))
	for _, r := range z.records {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return recordLess(out[i], out[j]) })
	return out
}

func recordLess(a, b *record) bool {
	if a.typ != b.typ {
		return a.typ < b.typ
	}
	if a.name != b.name {
		return a.name < b.name
	}
	if a.content != b.content {
		return a.content < b.content
	}
	return a.id < b.id
}
