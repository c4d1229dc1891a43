package aws

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/smithy-go"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// listPageSize is the largest page Route 53 returns.
const listPageSize = 300

// rrKey identifies a record set in a zone.
type rrKey struct{ name, recordType, setID string }

func keyOfRRSet(rr *r53types.ResourceRecordSet) rrKey {
	return rrKey{normName(deref(rr.Name)), string(rr.Type), deref(rr.SetIdentifier)}
}

func keyOfEndpoint(e *endpoint.Endpoint) rrKey {
	return rrKey{normName(e.DNSName), e.RecordType, e.SetIdentifier}
}

// zoneContents is the cached content of one zone: the record sets as Route 53 stores them, so that a
// DELETE can send exactly the stored TTL and values (in the compact form of stored.go), in listing
// order for stable output, under an index by key (set_index.go).
type zoneContents struct {
	hash    func(rrKey) uint64 // maphash with the zone's seed; a test makes every key collide
	index   setIndex           // by key: the position in entries
	entries []cachedSet        // listing order; a removed set leaves a hole until compact
	types   []string           // the record types of the entries, each once: cachedSet.rtype-1
}

// cachedSet is one entry of zoneContents: a set's key and storedSet in 72 bytes instead of 88. The
// record type is a position in the zone's table of types, and the set identifier, which few sets have
// (only those with a routing policy), is behind a pointer. A hole has rtype 0.
type cachedSet struct {
	name   string
	values []string
	rest   *r53types.ResourceRecordSet
	ttl    int64
	setID  *string
	rtype  uint32
}

// entryOf is the entry of the set s at k.
func (c *zoneContents) entryOf(k rrKey, s storedSet) cachedSet {
	e := cachedSet{name: k.name, values: s.values, rest: s.rest, ttl: s.ttl, rtype: c.typeCode(k.recordType)}
	if k.setID != "" {
		id := k.setID
		e.setID = &id
	}
	return e
}

// typeCode is t's rtype, t added to the table if new.
func (c *zoneContents) typeCode(t string) uint32 {
	if i := slices.Index(c.types, t); i >= 0 {
		return uint32(i) + 1
	}
	c.types = append(c.types, t)
	return uint32(len(c.types))
}

// hole reports whether the entry is a removed set's place.
func (e *cachedSet) hole() bool { return e.rtype == 0 }

// set is the entry's stored set.
func (e *cachedSet) set() storedSet { return storedSet{values: e.values, ttl: e.ttl, rest: e.rest} }

// keyOf is the entry's key; a hole's is the zero key.
func (c *zoneContents) keyOf(e *cachedSet) rrKey {
	if e.hole() {
		return rrKey{}
	}
	k := rrKey{name: e.name, recordType: c.types[e.rtype-1]}
	if e.setID != nil {
		k.setID = *e.setID
	}
	return k
}

// holds reports whether the entry is the set at k, without building its key.
func (c *zoneContents) holds(e *cachedSet, k rrKey) bool {
	if e.hole() || e.name != k.name || c.types[e.rtype-1] != k.recordType {
		return false
	}
	if e.setID == nil {
		return k.setID == ""
	}
	return *e.setID == k.setID
}

func newZoneContents() *zoneContents {
	seed := maphash.MakeSeed()
	return &zoneContents{hash: func(k rrKey) uint64 { return maphash.Comparable(seed, k) }, index: newSetIndex(0)}
}

// find is the position of k in entries.
func (c *zoneContents) find(k rrKey) (int32, bool) {
	if i, ok := c.slotOf(k, c.hash(k)); ok {
		return c.index.slots[i] - 1, true
	}
	return 0, false
}

// count is the number of sets stored.
func (c *zoneContents) count() int { return c.index.used }

func (c *zoneContents) put(rr *r53types.ResourceRecordSet) { c.putNamed(rr, "") }

// putNamed is put, with the key's name the string name when the set's normalised name equals it.
func (c *zoneContents) putNamed(rr *r53types.ResourceRecordSet, name string) {
	k, s := storeOf(rr)
	if k.name == name {
		k.name = name
	}
	if i, ok := c.find(k); ok {
		e := &c.entries[i]
		e.values, e.ttl, e.rest = s.values, s.ttl, s.rest
		return
	}
	c.add(k, s)
}

// add appends a set whose key is not stored.
func (c *zoneContents) add(k rrKey, s storedSet) {
	c.entries = append(c.entries, c.entryOf(k, s))
	c.indexAt(k, int32(len(c.entries)-1))
}

func (c *zoneContents) remove(k rrKey) {
	if i, ok := c.unindex(k); ok {
		c.entries[i] = cachedSet{}
	}
}

// compact drops the holes once they outnumber the sets, and builds the index again.
func (c *zoneContents) compact() {
	if len(c.entries) <= 2*c.count()+64 {
		return
	}
	c.reindex()
}

// reindex drops the holes and builds the index again, sized for what is stored: after a listing,
// and by compact.
func (c *zoneContents) reindex() {
	kept := make([]cachedSet, 0, c.count())
	for _, e := range c.entries {
		if !e.hole() {
			kept = append(kept, e)
		}
	}
	c.entries, c.index = kept, newSetIndex(len(kept))
	for i := range kept {
		c.indexAt(c.keyOf(&kept[i]), int32(i))
	}
}

// lookup is the stored set of key k; c may be nil (a zone not cached).
func (c *zoneContents) lookup(k rrKey) (storedSet, bool) {
	if c == nil {
		return storedSet{}, false
	}
	i, ok := c.find(k)
	if !ok {
		return storedSet{}, false
	}
	return c.entries[i].set(), true
}

// load fills the cache: the zone list, then every page of every zone not cached yet (all of them
// after Invalidate; those CheckZones dropped otherwise). A zone that cannot be read (access denied,
// deleted meanwhile) is remembered as unreadable and the others are loaded: the returned
// *provider.UnreadableZonesError names it, and it is tried again after the next CheckZones or
// Invalidate. Any other failure fails the load.
func (p *Provider) load(ctx context.Context) error {
	zs, err := p.zones(ctx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	gen := p.gen
	var missing []zone
	for _, z := range zs {
		if p.contents[z.id] == nil && p.unreadable[z.id] == nil {
			missing = append(missing, z)
		}
	}
	p.mu.Unlock()
	fresh := make(map[string]*zoneContents, len(missing))
	failed := map[string]error{}
	for _, z := range missing {
		c, err := p.listZone(ctx, z)
		if err != nil {
			if !zoneUnreadable(err) {
				return err
			}
			p.log.Warn("A hosted zone cannot be listed: it is left out of planning, its records are neither created nor deleted", "zoneName", z.name, "zoneID", z.id, "error", err.Error())
			failed[z.id] = err
			continue
		}
		fresh[z.id] = c
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return nil // invalidated meanwhile: the next call lists again
	}
	if p.contents == nil || len(fresh) > 0 || len(failed) > 0 {
		p.changedLocked()
	}
	if p.contents == nil {
		p.contents, p.listedAt = map[string]*zoneContents{}, p.now()
	}
	if p.unreadable == nil {
		p.unreadable = map[string]error{}
	}
	for id, c := range fresh {
		p.contents[id] = c
	}
	for id, err := range failed {
		p.unreadable[id] = err
	}
	return p.unreadableLocked()
}

// unreadableLocked returns the *provider.UnreadableZonesError of the zones that could not be listed,
// or nil. The caller holds p.mu.
func (p *Provider) unreadableLocked() error {
	if len(p.unreadable) == 0 {
		return nil
	}
	e := &provider.UnreadableZonesError{}
	for _, z := range p.zoneList {
		if err, bad := p.unreadable[z.id]; bad {
			e.Zones = append(e.Zones, provider.UnreadableZone{Name: z.name, ID: z.id, Err: err})
		} else {
			e.Readable = append(e.Readable, z.name)
		}
	}
	return e
}

// zoneUnreadable reports the errors that concern one zone only: access to it denied, or the zone gone.
func zoneUnreadable(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "AccessDenied", "AccessDeniedException", "NoSuchHostedZone":
			return true
		}
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && (re.HTTPStatusCode() == 403 || re.HTTPStatusCode() == 404)
}

// listZone reads every record set of a zone, 300 per page.
func (p *Provider) listZone(ctx context.Context, z zone) (*zoneContents, error) {
	c := newZoneContents()
	ctx = withZone(ctx, z)
	pages := route53.NewListResourceRecordSetsPaginator(z.api, &route53.ListResourceRecordSetsInput{
		HostedZoneId: ptr(z.id), MaxItems: ptr(int32(listPageSize)),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing record sets of zone %s: %w", z, err)
		}
		for i := range page.ResourceRecordSets {
			c.put(&page.ResourceRecordSets[i])
		}
	}
	c.reindex()
	return c, nil
}

// cachedEndpoints converts the cache. A key already seen in an earlier zone (public zones come first)
// is not listed again. complete is false when an Invalidate came after the listing (or stopped it
// from being stored): the cache then lacks zones, and nothing is converted. A complete conversion
// reports its listing version, when known, to a caller that asked (provider.WithListedVersion): read
// under the same lock, it is the version of exactly these endpoints.
func (p *Provider) cachedEndpoints(ctx context.Context) (eps []*endpoint.Endpoint, complete bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.contents == nil {
		return nil, false
	}
	for _, z := range p.zoneList {
		if p.contents[z.id] == nil && p.unreadable[z.id] == nil {
			return nil, false
		}
	}
	if version, known := p.versionLocked(); known {
		provider.ReportListedVersion(ctx, version)
	}
	total := 0
	for _, z := range p.zoneList {
		if c := p.contents[z.id]; c != nil {
			total += c.count()
		}
	}
	out := make([]*endpoint.Endpoint, 0, total)
	var seen map[rrKey]bool // only with several zones: one zone cannot list a key twice
	if len(p.zoneList) > 1 {
		seen = map[rrKey]bool{}
	}
	for _, z := range p.zoneList {
		c := p.contents[z.id]
		if c == nil {
			continue
		}
		for i := range c.entries {
			entry := &c.entries[i]
			if entry.hole() {
				continue
			}
			k := c.keyOf(entry)
			if seen[k] {
				continue
			}
			if e := p.listedLocked(k, entry.set(), z); e != nil {
				if seen != nil {
					seen[k] = true
				}
				out = append(out, e)
			}
		}
	}
	return out, true
}

// listedLocked is the endpoint Records lists for the stored set k of zone z (nil for sets zonekeeper
// never manages). The caller holds p.mu.
func (p *Provider) listedLocked(k rrKey, s storedSet, z zone) *endpoint.Endpoint {
	e := endpointOf(k, s, z)
	if e != nil && p.pinnedTo(k, z) {
		e.SetProviderSpecific(propHostedZoneID, z.id)
	}
	return e
}

// pinnedTo reports whether the record set k of zone z is listed with aws/hosted-zone-id: its name goes
// into several zones, and of those only z holds it. That is the form AdjustEndpoints gives a desired
// record pinned to z, and a record left in one zone alone shows as pinned there, so an unpinned
// desired record is written to the other zones again. The caller holds p.mu.
func (p *Provider) pinnedTo(k rrKey, z zone) bool {
	if !inSeveralZones(k.name, p.zoneList) {
		return false // most names: decided without building zonesFor's list
	}
	natural := zonesFor(k.name, p.zoneList)
	holder := ""
	for _, n := range natural {
		if _, held := p.contents[n.id].lookup(k); held {
			if holder != "" {
				return false
			}
			holder = n.id
		}
	}
	return holder == z.id
}

// inSeveralZones reports whether zonesFor(name, zs) has two zones or more: a private zone and any
// other the name lies in.
func inSeveralZones(name string, zs []zone) bool {
	private, public := 0, false
	for _, z := range zs {
		if inZone(name, z.name) {
			if z.private {
				private++
			} else {
				public = true
			}
		}
	}
	return private >= 2 || (private == 1 && public)
}

// stored returns the cached record set of key in a zone, or nil; known is false when the zone's
// contents are not cached (an Invalidate raced with the call).
func (p *Provider) stored(zoneID string, k rrKey) (rr *r53types.ResourceRecordSet, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.contents[zoneID]; c != nil {
		if s, ok := c.lookup(k); ok {
			return s.recordSet(k), true
		}
		return nil, true
	}
	return nil, false
}

// patch writes an accepted batch into the cache. names[i] is the normalised name of the record
// change i was made from: a set stored under that name keeps the caller's string (the TXT registry's
// cache holds the same one) instead of the one cut from the "name." the change was sent with.
func (p *Provider) patch(zoneID string, changes []r53types.Change, names []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.contents[zoneID]
	if c == nil {
		return
	}
	p.changedLocked()
	for _, ch := range changes {
		if ch.Action == r53types.ChangeActionDelete {
			c.remove(keyOfRRSet(ch.ResourceRecordSet))
		}
	}
	for i, ch := range changes {
		if ch.Action != r53types.ChangeActionDelete {
			c.putNamed(ch.ResourceRecordSet, names[i])
		}
	}
	c.compact()
}
