package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// change is one validated record-set change.
type change struct {
	action provider.Action
	ep     *endpoint.Endpoint
	fqdn   string // lower case, trailing dot
	zone   string
	rrtype uint16
	rrs    []dns.RR // the records to add (create, update)
}

// nameGroup is every change of one name: they always travel in one UPDATE message, deletes first,
// then updates, then creates, so a name is never half-changed and an A can give way to a CNAME.
type nameGroup struct {
	fqdn    string
	changes []*change
	done    bool // applied or rejected
}

// ApplyChanges implements provider.Provider.
//
// Changes are checked one by one (zone, type, targets) and grouped by name, the groups by zone. Each
// zone gets UPDATE messages of up to BatchChangeSize record-set changes, sent in turn over one TCP
// (or TLS) connection. An updated record set is removed with RemoveRRset and re-added in the same
// message, and a deleted one removed with RemoveRRset, so neither needs the old values. Adds carry the
// prerequisites that keep a CNAME alone at its name, which BIND otherwise silently ignores.
//
// When the server refuses a message (YXRRSET, REFUSED for one name under update-policy, …), the
// message is split in halves until the refused names are isolated; the others are applied and each
// refused change is reported in a *provider.ApplyError with the server's rcode. An answer that would
// be the same for every change of a zone (TSIG failure, REFUSED for the whole zone, NOTAUTH, an
// unreachable server) stops that zone: its remaining changes are reported as rejected with that
// error, or, when nothing at all was applied, the call returns a plain error.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if changes == nil {
		return nil
	}
	var rejected []provider.RejectedChange
	reject := func(c *change, err error) {
		rejected = append(rejected, provider.RejectedChange{Action: c.action, Endpoint: c.ep, Err: err})
	}
	groups := p.group(changes, reject)

	applied := 0
	var zoneErrs []error
	var zoneWide []provider.RejectedChange
	for _, zone := range p.s.zones {
		zg := groups[zone]
		if len(zg) == 0 {
			continue
		}
		run := &zoneRun{p: p, zone: zone, conn: p.newConn(), reject: reject}
		err := run.applyAll(ctx, zg)
		run.conn.close()
		applied += run.applied
		if err == nil {
			continue
		}
		zoneErrs = append(zoneErrs, err)
		for _, g := range zg {
			if !g.done {
				for _, c := range g.changes {
					zoneWide = append(zoneWide, provider.RejectedChange{Action: c.action, Endpoint: c.ep, Err: err})
				}
			}
		}
	}
	// Nothing applied and nothing refused for its own sake: the call failed as a whole (a wrong key,
	// an unreachable server), which the caller retries like any failed run.
	if len(zoneErrs) > 0 && applied == 0 && len(rejected) == 0 {
		return errors.Join(zoneErrs...)
	}
	rejected = append(rejected, zoneWide...)
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

// group validates the changes and groups the accepted ones by zone and name, in apply order.
func (p *Provider) group(changes *plan.Changes, reject func(*change, error)) map[string][]*nameGroup {
	byName := map[string]*nameGroup{}
	byZone := map[string][]*nameGroup{}
	add := func(action provider.Action, ep *endpoint.Endpoint) {
		if ep == nil {
			return
		}
		c, err := p.newChange(action, ep)
		if err != nil {
			reject(c, err)
			return
		}
		g := byName[c.fqdn]
		if g == nil {
			g = &nameGroup{fqdn: c.fqdn}
			byName[c.fqdn] = g
			byZone[c.zone] = append(byZone[c.zone], g)
		}
		g.changes = append(g.changes, c)
	}
	for _, ep := range changes.Delete {
		add(provider.ActionDelete, ep)
	}
	for _, ep := range changes.UpdateNew {
		add(provider.ActionUpdate, ep)
	}
	for _, ep := range changes.Create {
		add(provider.ActionCreate, ep)
	}
	for zone, zg := range byZone {
		kept := zg[:0]
		for _, g := range zg {
			rejectCNAMESharing(g, reject)
			if len(g.changes) > 0 {
				kept = append(kept, g)
			}
		}
		byZone[zone] = kept
	}
	return byZone
}

// newChange checks one change. The returned change is set even with an error, for the report.
func (p *Provider) newChange(action provider.Action, ep *endpoint.Endpoint) (*change, error) {
	c := &change{action: action, ep: ep, fqdn: strings.ToLower(dns.Fqdn(strings.TrimSpace(ep.DNSName)))}
	if _, ok := dns.IsDomainName(c.fqdn); !ok || ep.DNSName == "" {
		return c, fmt.Errorf("%q is not a valid DNS name", ep.DNSName)
	}
	if c.zone = p.s.zones.zoneOf(c.fqdn); c.zone == "" {
		return c, p.s.zones.notInZones(ep.DNSName)
	}
	if !supported(ep.RecordType) {
		return c, fmt.Errorf("record type %s is not supported by the rfc2136 provider (%s)", ep.RecordType, strings.Join(supportedTypes, ", "))
	}
	c.rrtype = dns.StringToType[ep.RecordType]
	if ep.SetIdentifier != "" {
		return c, fmt.Errorf("set identifier %q: the rfc2136 provider cannot hold several record sets of one name and type", ep.SetIdentifier)
	}
	if c.rrtype == dns.TypeNS && p.s.zones.isApex(c.fqdn) {
		return c, fmt.Errorf("the NS records at the apex of zone %s are the zone's own and not managed", trimDot(c.zone))
	}
	if c.rrtype == dns.TypeCNAME && p.s.zones.isApex(c.fqdn) {
		return c, fmt.Errorf("a CNAME cannot sit at the apex of zone %s (it holds the SOA and NS records)", trimDot(c.zone))
	}
	if action == provider.ActionDelete {
		return c, nil
	}
	rrs, err := buildRRs(ep, c.fqdn, p.ttl(ep))
	if err != nil {
		return c, err
	}
	c.rrs = rrs
	return c, nil
}

// rejectCNAMESharing drops the CNAME writes of a name whose changes also write another type: a
// server keeps one or the other and answers NOERROR either way, so the clash is reported here.
func rejectCNAMESharing(g *nameGroup, reject func(*change, error)) {
	var others []string
	hasCNAME := false
	for _, c := range g.changes {
		switch {
		case c.action == provider.ActionDelete:
		case c.rrtype == dns.TypeCNAME:
			hasCNAME = true
		default:
			others = append(others, c.ep.RecordType)
		}
	}
	if !hasCNAME || len(others) == 0 {
		return
	}
	kept := g.changes[:0]
	for _, c := range g.changes {
		if c.action != provider.ActionDelete && c.rrtype == dns.TypeCNAME {
			reject(c, fmt.Errorf("a CNAME cannot share the name %s with other records, and the same changes write %s there",
				trimDot(g.fqdn), strings.Join(others, ", ")))
			continue
		}
		kept = append(kept, c)
	}
	g.changes = kept
}
