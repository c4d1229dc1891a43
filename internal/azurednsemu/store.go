package azurednsemu

import (
	"fmt"
	"sort"
	"strings"
)

// state holds every subscription, resource group and zone. Names of
// subscriptions, resource groups and zones are matched case-insensitively,
// as ARM does; keys are lower-case and the first spelling is kept.
type state struct {
	subs   map[string]*subscription
	zones  map[zoneKey]*zone
	etagNo uint64
}

type subscription struct {
	id     string
	groups map[string]string // lower-case name → name as created
}

// zoneKey identifies a zone: public and private zones of the same name
// may live in the same resource group.
type zoneKey struct {
	api, sub, rg, name string
}

type zone struct {
	api        string
	sub, rg    string
	name       string
	etag       string
	tags       map[string]string
	internalID string
	sets       map[setKey]*recordSet
	links      map[string]*vnetLink
	// sorted caches sortedSets until the next write (lists page through
	// it once per call; a large zone is listed in many pages).
	sorted []*recordSet
}

// put stores a record set; drop removes one. Every write goes through
// them so the sorted cache stays right.
func (z *zone) put(r *recordSet) {
	z.sets[r.key()] = r
	z.sorted = nil
}

func (z *zone) drop(k setKey) {
	delete(z.sets, k)
	z.sorted = nil
}

// setKey identifies a record set in its zone: lower-case relative name and
// upper-case type.
type setKey struct {
	name, typ string
}

type vnetLink struct {
	name                string
	etag                string
	virtualNetwork      string
	registrationEnabled bool
}

func newState() *state {
	return &state{subs: map[string]*subscription{}, zones: map[zoneKey]*zone{}}
}

// nextETag returns a new etag in the GUID form Azure DNS uses.
func (st *state) nextETag() string {
	st.etagNo++
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", st.etagNo>>32, st.etagNo)
}

func (st *state) addGroup(sub, rg string) {
	s, ok := st.subs[strings.ToLower(sub)]
	if !ok {
		s = &subscription{id: sub, groups: map[string]string{}}
		st.subs[strings.ToLower(sub)] = s
	}
	if rg != "" {
		if _, ok := s.groups[strings.ToLower(rg)]; !ok {
			s.groups[strings.ToLower(rg)] = rg
		}
	}
}

func keyOf(api, sub, rg, name string) zoneKey {
	return zoneKey{api: api, sub: strings.ToLower(sub), rg: strings.ToLower(rg), name: strings.ToLower(strings.TrimSuffix(name, "."))}
}

// findGroup checks that the subscription and (when rg is not empty) the
// resource group exist, with ARM's error codes.
func (st *state) findGroup(sub, rg string) (*subscription, string, *armError) {
	s, ok := st.subs[strings.ToLower(sub)]
	if !ok {
		return nil, "", newErr(404, "SubscriptionNotFound", fmt.Sprintf("The subscription '%s' could not be found.", sub))
	}
	if rg == "" {
		return s, "", nil
	}
	name, ok := s.groups[strings.ToLower(rg)]
	if !ok {
		return nil, "", newErr(404, "ResourceGroupNotFound", fmt.Sprintf("Resource group '%s' could not be found.", rg))
	}
	return s, name, nil
}

// findZone returns a zone or ARM's ResourceNotFound.
func (st *state) findZone(api, sub, rg, name string) (*zone, *armError) {
	if _, _, e := st.findGroup(sub, rg); e != nil {
		return nil, e
	}
	z, ok := st.zones[keyOf(api, sub, rg, name)]
	if !ok {
		return nil, newErr(404, "ResourceNotFound", fmt.Sprintf("The Resource '%s/%s' under resource group '%s' was not found.", zoneResourceType(api), name, rg))
	}
	return z, nil
}

// zonesIn lists the zones of one API in a subscription (and resource group
// when rg is not empty), ordered by resource group then name.
func (st *state) zonesIn(api, sub, rg string) []*zone {
	var out []*zone
	for k, z := range st.zones {
		if k.api == api && k.sub == strings.ToLower(sub) && (rg == "" || k.rg == strings.ToLower(rg)) {
			out = append(out, z)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := strings.ToLower(out[i].rg), strings.ToLower(out[j].rg); a != b {
			return a < b
		}
		return out[i].name < out[j].name
	})
	return out
}

// sortedSets lists a zone's record sets by name then type.
func (z *zone) sortedSets() []*recordSet {
	if z.sorted != nil {
		return z.sorted
	}
	out := make([]*recordSet, 0, len(z.sets))
	for _, s := range z.sets {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key().less(out[j].key()) })
	z.sorted = out
	return out
}

func (k setKey) less(o setKey) bool {
	if k.name != o.name {
		return k.name < o.name
	}
	return k.typ < o.typ
}

func zoneResourceType(api string) string {
	if api == APIPrivateDNS {
		return "Microsoft.Network/privateDnsZones"
	}
	return "Microsoft.Network/dnszones"
}

func zoneID(z *zone) string {
	return "/subscriptions/" + z.sub + "/resourceGroups/" + z.rg + "/providers/" + zoneResourceType(z.api) + "/" + z.name
}

// maxRecordSets is the record-set quota per zone Azure documents (public
// 10,000, private 25,000).
func maxRecordSets(api string) int {
	if api == APIPrivateDNS {
		return 25000
	}
	return 10000
}

// maxRecordsPerSet is Azure's documented limit of records in one record set.
const maxRecordsPerSet = 20
