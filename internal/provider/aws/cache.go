package aws

import (
	"context"
	"errors"
	"fmt"

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
// DELETE can send exactly the stored TTL and values.
type zoneContents struct {
	sets  map[rrKey]*r53types.ResourceRecordSet
	order []rrKey // listing order, for stable output; may hold keys deleted since
}

func (c *zoneContents) put(rr *r53types.ResourceRecordSet) {
	k := keyOfRRSet(rr)
	if _, ok := c.sets[k]; !ok {
		c.order = append(c.order, k)
	}
	c.sets[k] = rr
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
	c := &zoneContents{sets: map[rrKey]*r53types.ResourceRecordSet{}}
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
	return c, nil
}

// cachedEndpoints converts the cache. A key already seen in an earlier zone (public zones come first)
// is not listed again. complete is false when an Invalidate came after the listing (or stopped it
// from being stored): the cache then lacks zones, and nothing is converted.
func (p *Provider) cachedEndpoints() (eps []*endpoint.Endpoint, complete bool) {
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
	var out []*endpoint.Endpoint
	seen := map[rrKey]bool{}
	for _, z := range p.zoneList {
		c := p.contents[z.id]
		if c == nil {
			continue
		}
		for _, k := range c.order {
			rr, ok := c.sets[k]
			if !ok || seen[k] {
				continue
			}
			if e := fromRRSet(rr, z); e != nil {
				seen[k] = true
				if p.pinnedTo(k, z) {
					e.SetProviderSpecific(propHostedZoneID, z.id)
				}
				out = append(out, e)
			}
		}
	}
	return out, true
}

// pinnedTo reports whether the record set k of zone z is listed with aws/hosted-zone-id: its name goes
// into several zones, and of those only z holds it. That is the form AdjustEndpoints gives a desired
// record pinned to z, and a record left in one zone alone shows as pinned there, so an unpinned
// desired record is written to the other zones again. The caller holds p.mu.
func (p *Provider) pinnedTo(k rrKey, z zone) bool {
	natural := zonesFor(k.name, p.zoneList)
	if len(natural) < 2 {
		return false
	}
	holder := ""
	for _, n := range natural {
		if c := p.contents[n.id]; c != nil && c.sets[k] != nil {
			if holder != "" {
				return false
			}
			holder = n.id
		}
	}
	return holder == z.id
}

// stored returns the cached record set of key in a zone, or nil; known is false when the zone's
// contents are not cached (an Invalidate raced with the call).
func (p *Provider) stored(zoneID string, k rrKey) (rr *r53types.ResourceRecordSet, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.contents[zoneID]; c != nil {
		return c.sets[k], true
	}
	return nil, false
}

// patch writes an accepted batch into the cache.
func (p *Provider) patch(zoneID string, changes []r53types.Change) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.contents[zoneID]
	if c == nil {
		return
	}
	p.changedLocked()
	for _, ch := range changes {
		if ch.Action == r53types.ChangeActionDelete {
			delete(c.sets, keyOfRRSet(ch.ResourceRecordSet))
		}
	}
	for _, ch := range changes {
		if ch.Action != r53types.ChangeActionDelete {
			c.put(ch.ResourceRecordSet)
		}
	}
	if len(c.order) > 2*len(c.sets)+64 {
		kept := c.order[:0]
		for _, k := range c.order {
			if _, ok := c.sets[k]; ok {
				kept = append(kept, k)
			}
		}
		c.order = kept
	}
}
