package azurednsemu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Seed is the emulator's starting content: subscriptions, resource groups,
// public and private zones with record sets and virtual network links, and
// applications the token endpoint accepts.
type Seed struct {
	Credentials   []Credential       `json:"credentials,omitempty"`
	Subscriptions []SeedSubscription `json:"subscriptions"`
}

type SeedSubscription struct {
	ID             string              `json:"id"`
	ResourceGroups []SeedResourceGroup `json:"resourceGroups"`
}

type SeedResourceGroup struct {
	Name         string     `json:"name"`
	Zones        []SeedZone `json:"zones,omitempty"`
	PrivateZones []SeedZone `json:"privateZones,omitempty"`
}

type SeedZone struct {
	Name                string            `json:"name"`
	Tags                map[string]string `json:"tags,omitempty"`
	RecordSets          []SeedRecordSet   `json:"recordSets,omitempty"`
	VirtualNetworkLinks []SeedLink        `json:"virtualNetworkLinks,omitempty"`
}

// SeedRecordSet is a record set with its records in zone-file form:
// A "192.0.2.1", MX "10 mail.example.com", SRV "10 5 443 target", CAA
// "0 issue ca.example", TXT one string per record. AutoRegistered (private
// zones only) marks a set a VNet link registered, which clients must leave
// alone.
type SeedRecordSet struct {
	Name           string            `json:"name"`
	Type           string            `json:"type"`
	TTL            int64             `json:"ttl"`
	Records        []string          `json:"records"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	AutoRegistered bool              `json:"autoRegistered,omitempty"`
}

type SeedLink struct {
	Name                string `json:"name"`
	VirtualNetwork      string `json:"virtualNetwork"`
	RegistrationEnabled bool   `json:"registrationEnabled,omitempty"`
}

// LoadSeedFile reads a JSON Seed, refusing unknown fields.
func LoadSeedFile(path string) (Seed, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Seed{}, err
	}
	var s Seed
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Seed{}, fmt.Errorf("seed %s: %w", path, err)
	}
	return s, nil
}

// Seed adds everything in seed; on an error nothing is added.
func (s *Server) Seed(seed Seed) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, creds := s.st.clone(), append([]Credential(nil), s.creds...)
	for i, c := range seed.Credentials {
		if c.TenantID == "" || c.ClientID == "" || c.ClientSecret == "" {
			return fmt.Errorf("seed credentials[%d]: tenantId, clientId and clientSecret must all be set", i)
		}
		creds = append(creds, c)
	}
	for _, sub := range seed.Subscriptions {
		if sub.ID == "" {
			return fmt.Errorf("seed: a subscription has no id")
		}
		st.addGroup(sub.ID, "")
		for _, rg := range sub.ResourceGroups {
			if rg.Name == "" {
				return fmt.Errorf("seed subscription %s: a resource group has no name", sub.ID)
			}
			st.addGroup(sub.ID, rg.Name)
			for _, zs := range rg.Zones {
				if err := st.seedZone(APIDNS, sub.ID, rg.Name, zs); err != nil {
					return fmt.Errorf("seed %s/%s: %w", sub.ID, rg.Name, err)
				}
			}
			for _, zs := range rg.PrivateZones {
				if err := st.seedZone(APIPrivateDNS, sub.ID, rg.Name, zs); err != nil {
					return fmt.Errorf("seed %s/%s: %w", sub.ID, rg.Name, err)
				}
			}
		}
	}
	s.st, s.creds = st, creds
	return nil
}

// AddZone creates an empty zone (apex SOA, and NS for a public zone) in a
// subscription and resource group, creating those as needed.
func (s *Server) AddZone(private bool, subscription, resourceGroup, name string) error {
	api := APIDNS
	if private {
		api = APIPrivateDNS
	}
	return s.Seed(Seed{Subscriptions: []SeedSubscription{{ID: subscription, ResourceGroups: []SeedResourceGroup{
		zonesOf(api, resourceGroup, SeedZone{Name: name})}}}})
}

func zonesOf(api, rg string, z SeedZone) SeedResourceGroup {
	if api == APIPrivateDNS {
		return SeedResourceGroup{Name: rg, PrivateZones: []SeedZone{z}}
	}
	return SeedResourceGroup{Name: rg, Zones: []SeedZone{z}}
}

func (st *state) seedZone(api, sub, rg string, zs SeedZone) error {
	name := strings.ToLower(strings.TrimSuffix(zs.Name, "."))
	if err := validName(name); err != nil || !strings.Contains(name, ".") || strings.HasPrefix(name, "*") {
		return fmt.Errorf("zone %q: want a DNS name of at least two labels", zs.Name)
	}
	k := keyOf(api, sub, rg, name)
	if _, ok := st.zones[k]; ok {
		return fmt.Errorf("zone %s exists already", name)
	}
	z := &zone{api: api, sub: sub, rg: st.subs[strings.ToLower(sub)].groups[strings.ToLower(rg)], name: name,
		etag: st.nextETag(), tags: zs.Tags, sets: map[setKey]*recordSet{}, links: map[string]*vnetLink{}}
	z.internalID = fmt.Sprintf("emu-%d", st.etagNo)
	apexSets(st, z)
	for i, rs := range zs.RecordSets {
		r, err := seedSet(api, rs)
		if err != nil {
			return fmt.Errorf("zone %s recordSets[%d] (%s %s): %w", name, i, rs.Type, rs.Name, err)
		}
		if r.auto && api != APIPrivateDNS {
			return fmt.Errorf("zone %s recordSets[%d]: autoRegistered is for private zones only", name, i)
		}
		if cur := z.sets[r.key()]; cur != nil && cur.typ != "NS" {
			return fmt.Errorf("zone %s recordSets[%d]: %s %s is there already", name, i, r.typ, r.name)
		}
		r.etag = st.nextETag()
		z.put(r)
	}
	for i, l := range zs.VirtualNetworkLinks {
		if api != APIPrivateDNS || l.Name == "" || l.VirtualNetwork == "" {
			return fmt.Errorf("zone %s virtualNetworkLinks[%d]: links need a private zone, a name and a virtualNetwork id", name, i)
		}
		z.links[strings.ToLower(l.Name)] = &vnetLink{name: l.Name, etag: st.nextETag(), virtualNetwork: l.VirtualNetwork, registrationEnabled: l.RegistrationEnabled}
	}
	st.zones[k] = z
	return nil
}

// apexSets adds the SOA (and for a public zone the NS) record set a new
// Azure zone has.
func apexSets(st *state, z *zone) {
	soa := &recordSet{name: "@", typ: "SOA", ttl: 3600, etag: st.nextETag(), soa: &soaRecord{Host: publicNameServers[0],
		Email: "azuredns-hostmaster.microsoft.com", Serial: 1, Refresh: 3600, Retry: 300, Expire: 2419200, MinimumTTL: 300}}
	if z.api == APIPrivateDNS {
		soa.soa = &soaRecord{Host: "azureprivatedns.net", Email: "azureprivatedns-host.microsoft.com", Serial: 1, Refresh: 3600,
			Retry: 300, Expire: 2419200, MinimumTTL: 10}
	} else {
		ns := &recordSet{name: "@", typ: "NS", ttl: 172800, etag: st.nextETag(), ns: append([]string(nil), publicNameServers...)}
		z.put(ns)
	}
	z.put(soa)
}

func seedSet(api string, rs SeedRecordSet) (*recordSet, error) {
	typ, ok := canonicalType(api, rs.Type)
	if !ok || typ == "SOA" {
		return nil, fmt.Errorf("type %q: want one of %s except SOA", rs.Type, strings.Join(recordTypes[api], ", "))
	}
	if err := validName(rs.Name); err != nil {
		return nil, err
	}
	r := &recordSet{name: rs.Name, typ: typ, ttl: rs.TTL, auto: rs.AutoRegistered}
	if len(rs.Metadata) > 0 {
		r.metadata = rs.Metadata
	}
	for i, v := range rs.Records {
		if err := r.addRecord(v); err != nil {
			return nil, fmt.Errorf("records[%d] %q: %w", i, v, err)
		}
	}
	return r, r.validate(api)
}

// addRecord parses one record in zone-file form.
func (r *recordSet) addRecord(v string) error {
	f := strings.Fields(v)
	num := func(s string) (int32, error) {
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err
	}
	switch r.typ {
	case "A":
		r.a = append(r.a, v)
	case "AAAA":
		r.aaaa = append(r.aaaa, v)
	case "NS":
		r.ns = append(r.ns, v)
	case "PTR":
		r.ptr = append(r.ptr, v)
	case "TXT":
		r.txt = append(r.txt, []string{v})
	case "CNAME":
		if r.cname != nil {
			return fmt.Errorf("a CNAME record set holds one record")
		}
		r.cname = &v
	case "MX":
		if len(f) != 2 {
			return fmt.Errorf("want \"PREFERENCE EXCHANGE\"")
		}
		p, err := num(f[0])
		if err != nil {
			return err
		}
		r.mx = append(r.mx, mxRecord{Preference: p, Exchange: f[1]})
	case "SRV":
		if len(f) != 4 {
			return fmt.Errorf("want \"PRIORITY WEIGHT PORT TARGET\"")
		}
		var n [3]int32
		for i := range n {
			x, err := num(f[i])
			if err != nil {
				return err
			}
			n[i] = x
		}
		r.srv = append(r.srv, srvRecord{Priority: n[0], Weight: n[1], Port: n[2], Target: f[3]})
	case "CAA":
		if len(f) < 3 {
			return fmt.Errorf("want \"FLAGS TAG VALUE\"")
		}
		fl, err := num(f[0])
		if err != nil {
			return err
		}
		r.caa = append(r.caa, caaRecord{Flags: fl, Tag: f[1], Value: strings.Join(f[2:], " ")})
	}
	return nil
}

// records renders a set's records in zone-file form (TXT strings of one
// record are concatenated).
func (r *recordSet) records() []string {
	out := []string{}
	out = append(out, r.a...)
	out = append(out, r.aaaa...)
	out = append(out, r.ns...)
	out = append(out, r.ptr...)
	for _, t := range r.txt {
		out = append(out, strings.Join(t, ""))
	}
	if r.cname != nil {
		out = append(out, *r.cname)
	}
	for _, m := range r.mx {
		out = append(out, fmt.Sprintf("%d %s", m.Preference, m.Exchange))
	}
	for _, s := range r.srv {
		out = append(out, fmt.Sprintf("%d %d %d %s", s.Priority, s.Weight, s.Port, s.Target))
	}
	for _, c := range r.caa {
		out = append(out, fmt.Sprintf("%d %s %s", c.Flags, c.Tag, c.Value))
	}
	if s := r.soa; s != nil {
		out = append(out, fmt.Sprintf("%s %s %d %d %d %d %d", s.Host, s.Email, s.Serial, s.Refresh, s.Retry, s.Expire, s.MinimumTTL))
	}
	return out
}

// clone copies the state deeply enough that a failed Seed leaves the
// original untouched (zones are replaced, never edited, by Seed).
func (st *state) clone() *state {
	c := &state{subs: map[string]*subscription{}, zones: map[zoneKey]*zone{}, etagNo: st.etagNo}
	for k, s := range st.subs {
		g := map[string]string{}
		for gk, gv := range s.groups {
			g[gk] = gv
		}
		c.subs[k] = &subscription{id: s.id, groups: g}
	}
	for k, z := range st.zones {
		c.zones[k] = z
	}
	return c
}
