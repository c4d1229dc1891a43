package aws

import (
	"context"
	"errors"
	"fmt"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// origin is one change as the caller asked for it; a rejection names its endpoint.
type origin struct {
	action provider.Action
	ep     *endpoint.Endpoint
}

// unit is what one origin asks of one zone: one Route 53 change, or a DELETE and a CREATE when an
// update changes the routing policy or turns a record into an alias (Route 53 cannot UPSERT across
// those).
type unit struct {
	origin  int
	changes []r53types.Change
	name    string // normalised record name
	rtype   string
}

// ApplyChanges implements provider.Provider. Each change goes to the zones that hold its name (every
// matching private zone and the most specific public zone). Per zone, changes are grouped so that a
// record and its ownership TXT travel together, packed into batches under the --aws-batch-change-size*
// limits, and sent one ChangeResourceRecordSets per batch. A batch Route 53 rejects as a whole is split
// until the offending groups stand alone; they are reported in an *provider.ApplyError with Route 53's
// message and the rest is applied. Other errors (throttling beyond the retries, access denied, a
// network failure) end the call: the registry then lists again before the next attempt.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil || !changes.HasChanges() {
		return nil
	}
	if len(changes.UpdateOld) != len(changes.UpdateNew) {
		return fmt.Errorf("aws: UpdateOld and UpdateNew differ in length")
	}
	p.opMu.Lock()
	defer p.opMu.Unlock()
	b, zs, err := p.build(ctx, changes)
	if err != nil {
		return err
	}
	first := true
	for _, z := range zs {
		units := b.perZone[z.id]
		if len(units) == 0 {
			continue
		}
		batches := p.pack(units, b.origins)
		for i, batch := range batches {
			if !first {
				if err := p.sleep(ctx, p.cfg.BatchChangeInterval); err != nil {
					return err
				}
			}
			first = false
			rejected, err := p.send(ctx, z, batch, b.origins)
			if err != nil {
				if !answeredUnapplied(ctx, err) {
					return err // unknown whether Route 53 applied it: the caller lists again
				}
				// Route 53 answered and applied nothing (a batch is atomic). This zone's remaining
				// batches are not sent now; its changes are retried with backoff, other zones go on,
				// and the cache (unchanged) is kept.
				msg := "not applied, the API failed (" + err.Error() + "); retried with backoff"
				for _, later := range batches[i:] {
					for _, g := range later {
						b.rejected = append(b.rejected, rejectGroup(z, g, b.origins, msg)...)
					}
				}
				break
			}
			b.rejected = append(b.rejected, rejected...)
		}
	}
	if len(b.rejected) > 0 {
		return &provider.ApplyError{Rejected: dedupe(b.rejected)}
	}
	return nil
}

// build loads the cache if needed (zones that cannot be listed stay out: changes into them are
// rejected) and turns the changes into units per zone. The caller holds opMu.
func (p *Provider) build(ctx context.Context, changes *plan.Changes) (*builder, []zone, error) {
	if err := p.load(ctx); err != nil {
		if _, partial := provider.AsUnreadableZones(err); !partial {
			return nil, nil, err
		}
	}
	zs, err := p.zones(ctx)
	if err != nil {
		return nil, nil, err
	}
	b := &builder{p: p, zones: zs, perZone: map[string][]*unit{}}
	for _, e := range changes.Delete {
		b.add(provider.ActionDelete, e, nil)
	}
	for i, e := range changes.UpdateNew {
		b.add(provider.ActionUpdate, e, changes.UpdateOld[i])
	}
	for _, e := range changes.Create {
		b.add(provider.ActionCreate, e, nil)
	}
	return b, zs, nil
}

// builder turns plan changes into units per zone.
type builder struct {
	p        *Provider
	zones    []zone
	origins  []origin
	perZone  map[string][]*unit
	rejected []provider.RejectedChange
}

func (b *builder) reject(o int, err error) {
	b.rejected = append(b.rejected, provider.RejectedChange{Action: b.origins[o].action, Endpoint: b.origins[o].ep, Err: err})
}

func (b *builder) add(action provider.Action, e, old *endpoint.Endpoint) {
	b.origins = append(b.origins, origin{action: action, ep: e})
	o := len(b.origins) - 1
	name := normName(e.DNSName)
	targets, err := placement(e, b.zones)
	if err != nil {
		b.reject(o, fmt.Errorf("%s %s: %w", name, e.RecordType, err))
		return
	}
	if len(targets) == 0 {
		b.reject(o, fmt.Errorf("%s is in no hosted zone this provider manages (zones: %s)", name, zoneNames(b.zones)))
		return
	}
	for _, z := range targets {
		if err := b.p.unreadableZone(z.id); err != nil {
			b.reject(o, fmt.Errorf("%s %s: hosted zone %s could not be listed, its records are left alone: %w", name, e.RecordType, z, err))
			return
		}
	}
	if action == provider.ActionUpdate {
		b.leave(o, old, targets)
	}
	for _, z := range targets {
		u := &unit{origin: o, name: name, rtype: e.RecordType}
		switch action {
		case provider.ActionDelete:
			rr, known := b.p.stored(z.id, keyOfEndpoint(e))
			if !known {
				// The cache was dropped meanwhile: delete what the caller says is stored.
				var err error
				if rr, err = b.p.toRRSet(e, z.id); err != nil {
					b.reject(o, fmt.Errorf("%s %s: %w", name, e.RecordType, err))
					return
				}
			}
			if rr == nil {
				continue // not in this zone: nothing to delete
			}
			u.changes = []r53types.Change{{Action: r53types.ChangeActionDelete, ResourceRecordSet: rr}}
		case provider.ActionCreate, provider.ActionUpdate:
			rr, err := b.p.toRRSet(e, z.id)
			if err != nil {
				b.reject(o, fmt.Errorf("%s %s: %w", name, e.RecordType, err))
				return
			}
			u.rtype = string(rr.Type)
			if action == provider.ActionCreate {
				u.changes = []r53types.Change{{Action: r53types.ChangeActionCreate, ResourceRecordSet: rr}}
				break
			}
			prev, _ := b.p.stored(z.id, keyOfEndpoint(old))
			if prev != nil && (keyOfRRSet(prev) != keyOfRRSet(rr) || needsReplace(prev, rr)) {
				u.changes = []r53types.Change{
					{Action: r53types.ChangeActionDelete, ResourceRecordSet: prev},
					{Action: r53types.ChangeActionCreate, ResourceRecordSet: rr},
				}
			} else {
				u.changes = []r53types.Change{{Action: r53types.ChangeActionUpsert, ResourceRecordSet: rr}}
			}
		}
		b.perZone[z.id] = append(b.perZone[z.id], u)
	}
}

// leave deletes the stored set of old from the zones it was placed in that an update no longer targets
// (aws/hosted-zone-id added or changed): the record moves instead of staying behind.
func (b *builder) leave(o int, old *endpoint.Endpoint, targets []zone) {
	was, err := placement(old, b.zones)
	if err != nil {
		return
	}
	for _, z := range was {
		if containsZone(targets, z) {
			continue
		}
		rr, _ := b.p.stored(z.id, keyOfEndpoint(old))
		if rr == nil {
			continue
		}
		b.perZone[z.id] = append(b.perZone[z.id], &unit{origin: o, name: normName(old.DNSName), rtype: old.RecordType,
			changes: []r53types.Change{{Action: r53types.ChangeActionDelete, ResourceRecordSet: rr}}})
	}
}

func containsZone(zs []zone, z zone) bool {
	for _, x := range zs {
		if x.id == z.id {
			return true
		}
	}
	return false
}

// needsReplace reports an update Route 53 cannot make in place: the routing policy kind or the alias
// flag changes.
func needsReplace(prev, next *r53types.ResourceRecordSet) bool {
	return policyKind(prev) != policyKind(next) || (prev.AliasTarget == nil) != (next.AliasTarget == nil)
}

func policyKind(rr *r53types.ResourceRecordSet) string {
	switch {
	case rr.Weight != nil:
		return "weight"
	case rr.Region != "":
		return "region"
	case rr.Failover != "":
		return "failover"
	case rr.GeoLocation != nil:
		return "geolocation"
	case rr.MultiValueAnswer != nil:
		return "multivalue"
	case rr.GeoProximityLocation != nil:
		return "geoproximity"
	}
	return ""
}

func zoneNames(zs []zone) string {
	names := make([]string, len(zs))
	for i, z := range zs {
		names[i] = z.name
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// dedupe keeps one rejection per caller change (a change placed in two zones may fail in both).
func dedupe(rs []provider.RejectedChange) []provider.RejectedChange {
	seen := map[*endpoint.Endpoint]bool{}
	out := rs[:0]
	for _, r := range rs {
		if seen[r.Endpoint] {
			continue
		}
		seen[r.Endpoint] = true
		out = append(out, r)
	}
	return out
}

// answeredUnapplied reports whether err is Route 53's own answer (an HTTP response, after the SDK's
// retries) to a ChangeResourceRecordSets: the batch was then not applied. A transport error (no
// answer) or the end of ctx leaves that unknown.
func answeredUnapplied(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() > 0
}

// unreadableZone returns why a zone could not be listed, or nil.
func (p *Provider) unreadableZone(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unreadable[id]
}
