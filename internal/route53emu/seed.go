package route53emu

import (
	"encoding/json"
	"fmt"
	"os"
)

// Seed is initial state: zones with their record sets and tags. Records go
// through the same validation as ChangeResourceRecordSets (as UPSERTs, so a
// seed may replace the apex NS or SOA), so seeded state is always state the
// real API could hold.
type Seed struct {
	Zones []SeedZone `json:"zones"`
}

// SeedZone is one hosted zone to create.
type SeedZone struct {
	ID              string            `json:"id,omitempty"` // bare "Z…"; random when empty
	Name            string            `json:"name"`
	CallerReference string            `json:"callerReference,omitempty"`
	Comment         *string           `json:"comment,omitempty"`
	Private         bool              `json:"private,omitempty"`
	VPCID           string            `json:"vpcId,omitempty"`
	VPCRegion       string            `json:"vpcRegion,omitempty"`
	Tags            map[string]string `json:"tags,omitempty"`
	Records         []RecordSet       `json:"records,omitempty"`
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

// Seed creates the zones and records of seed. It stops at the first invalid
// zone or record set; zones created before it are kept.
func (s *Server) Seed(seed Seed) ([]SeededZone, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SeededZone
	for i, sz := range seed.Zones {
		ref := sz.CallerReference
		if ref == "" {
			ref = "seed-" + randomString(16, idAlphabet)
		}
		spec := zoneSpec{id: bareID(sz.ID), name: sz.Name, callerRef: ref, comment: sz.Comment, hasConfig: sz.Comment != nil || sz.Private, privateFlag: sz.Private}
		if sz.Private || sz.VPCID != "" {
			spec.vpc = &vpcXML{VPCId: sz.VPCID, VPCRegion: sz.VPCRegion}
		}
		z, _, e := s.createZoneLocked(spec)
		if e != nil {
			return out, fmt.Errorf("seed zone %d (%q): %s", i, sz.Name, e.Error())
		}
		out = append(out, SeededZone{ID: z.id, Name: z.name})
		if len(sz.Tags) > 0 {
			var add []tagXML
			for k, v := range sz.Tags {
				add = append(add, tagXML{Key: k, Value: v})
			}
			s.applyTagsLocked("hostedzone/"+z.id, add, nil)
		}
		if len(sz.Records) == 0 {
			continue
		}
		var in changeBatchRequest
		in.ChangeBatch = &struct {
			Comment *string `xml:"Comment"`
			Changes *struct {
				Items []changeXML `xml:"Change"`
			} `xml:"Changes"`
		}{Changes: &struct {
			Items []changeXML `xml:"Change"`
		}{}}
		for j := range sz.Records {
			in.ChangeBatch.Changes.Items = append(in.ChangeBatch.Changes.Items, changeXML{Action: "UPSERT", ResourceRecordSet: &sz.Records[j]})
		}
		changes, e := parseChanges(&in)
		if e != nil {
			return out, fmt.Errorf("seed zone %q records: %s", sz.Name, e.Error())
		}
		wc := newWorkingCopy(z)
		if msgs := s.applyChanges(wc, changes); len(msgs) > 0 {
			return out, fmt.Errorf("seed zone %q records: %s", sz.Name, invalidChangeBatch(msgs).Message)
		}
		wc.commit()
	}
	return out, nil
}

// ZoneDump is a zone and all its sets, for the control API and tests.
type ZoneDump struct {
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Private bool        `json:"private"`
	Records []RecordSet `json:"records"`
}

// Dump returns every zone (in id order) with its sets in listing order.
func (s *Server) Dump() []ZoneDump {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ZoneDump
	for _, z := range s.st.zonesByID() {
		d := ZoneDump{ID: z.id, Name: z.name, Private: z.private}
		for _, st := range z.listing() {
			d.Records = append(d.Records, st.set)
		}
		out = append(out, d)
	}
	return out
}
