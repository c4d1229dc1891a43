package aws

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// sameZone stands for "the zone the record goes into" while adjusting, before a zone is chosen.
const sameZone = "same-zone"

// AdjustEndpoints implements provider.EndpointAdjuster with adjust; it never fails.
func (p *Provider) AdjustEndpoints(_ context.Context, desired []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	return p.adjust(desired), nil
}

// adjust returns the desired endpoints exactly as
// Records will list them once written, so the plan compares like with like:
//
//   - a CNAME to an AWS load balancer, CloudFront or Global Accelerator hostname (unless
//     --aws-prefer-cname), or any CNAME with alias=true, becomes an A alias plus an AAAA alias (alias=A or
//     alias=AAAA keeps one family); an A or AAAA with alias=true stays an alias of its own family;
//   - an alias gets TTL 300 and aws/evaluate-target-health (annotation, else the flag default);
//   - routing properties take their stored form (aws/weight "010" → "10", aws-multi-value-answer → "");
//   - TXT targets take the form Records returns (see txt.go);
//   - a geoproximity record gets aws/geoproximity-bias 0 when it has none (it is always sent);
//   - aws/hosted-zone-id keeps the bare zone id, and is dropped when the name goes into that zone
//     alone anyway (see pinFor);
//   - properties of other providers and alias properties on non-aliases are dropped.
//
// An endpoint that cannot be written (a bad aws-weight, say) is returned with only the foreign
// properties dropped; ApplyChanges then rejects it with a message naming the property.
func (p *Provider) adjust(desired []*endpoint.Endpoint) []*endpoint.Endpoint {
	return p.adjustEach(desired, true)
}

// adjustEach is adjust; without skipPlain every record goes through the round trip, as the tests
// compare.
func (p *Provider) adjustEach(desired []*endpoint.Endpoint, skipPlain bool) []*endpoint.Endpoint {
	out := make([]*endpoint.Endpoint, 0, len(desired))
	p.mu.Lock()
	zs := p.zoneList
	p.mu.Unlock()
	for _, e := range desired {
		out = p.adjustOne(out, e, zs, skipPlain)
	}
	return out
}

// adjustOne appends e's adjusted form to out. It copies on write: an endpoint already in the form
// Records lists (a plain A record without properties, the commonest at 20,000 Ingresses) is appended
// as it is, and the others share the caller's targets and labels where they keep them, so an idle
// resync allocates nothing for most endpoints (it deep-copied each, about 9 MB a resync at 20,000).
// Neither e nor anything it points to is written: c is a copy of the struct whose slice fields are
// replaced, never written through. The result may share memory with e (as
// provider.WithoutForeignProperties's does); callers copy before they change an endpoint.
func (p *Provider) adjustOne(out []*endpoint.Endpoint, e *endpoint.Endpoint, zs []zone, skipPlain bool) []*endpoint.Endpoint {
	c := *e
	props, pin, pinned := ownProperties(e.ProviderSpecific)
	c.ProviderSpecific = props
	if pinned {
		pin = bareZoneID(strings.TrimSpace(pin))
		if zs != nil && !pinMatters(normName(c.DNSName), pin, zs) {
			pinned = false
		}
	}
	withPin := func(a *endpoint.Endpoint) *endpoint.Endpoint {
		if pinned { // a's properties are ours: a pin made ownProperties copy them
			a.SetProviderSpecific(propHostedZoneID, pin)
		}
		return a
	}
	families := p.aliasFamilies(&c)
	if len(families) == 0 {
		c.ProviderSpecific = withoutProperties(c.ProviderSpecific, propAlias, propEvaluateTargetHealth, propTargetHostedZone)
		if skipPlain && roundTripKeeps(&c) {
			if !pinned && e.ProviderSpecific == nil {
				return append(out, e) // c is *e
			}
			kept := c
			kept.ProviderSpecific = nil // as the round trip leaves it
			return append(out, withPin(&kept))
		}
		rt := c
		return append(out, withPin(p.roundTrip(&rt)))
	}
	if target, eth, ok := p.plainAlias(&c); ok && skipPlain {
		for i, family := range families {
			labels := c.Labels // the first alias shares the caller's labels, the others a copy each
			if i > 0 {
				labels = maps.Clone(c.Labels)
			}
			out = append(out, withPin(&endpoint.Endpoint{
				DNSName: c.DNSName, Targets: endpoint.Targets{target}, RecordType: family, RecordTTL: DefaultTTL, Labels: labels,
				ProviderSpecific: endpoint.ProviderSpecific{
					{Name: propAlias, Value: "true"}, {Name: propEvaluateTargetHealth, Value: strconv.FormatBool(eth)},
				},
			}))
		}
		return out
	}
	for _, family := range families {
		a := c.DeepCopy()
		a.RecordType = family
		a.Targets = endpoint.Targets{strings.TrimSuffix(strings.ToLower(a.Targets[0]), ".")}
		a.RecordTTL = DefaultTTL
		a.SetProviderSpecific(propAlias, "true")
		out = append(out, withPin(p.roundTrip(a)))
	}
	return out
}

// aliasFamilies returns the alias record types an endpoint becomes, or nil for a plain record.
func (p *Provider) aliasFamilies(e *endpoint.Endpoint) []string {
	if len(e.Targets) == 0 {
		return nil
	}
	v, has := e.GetProviderSpecific(propAlias)
	switch e.RecordType {
	case endpoint.RecordTypeCNAME:
		switch {
		case has && strings.EqualFold(v, "true"):
			return []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA}
		case has && strings.EqualFold(v, endpoint.RecordTypeA):
			return []string{endpoint.RecordTypeA}
		case has && strings.EqualFold(v, endpoint.RecordTypeAAAA):
			return []string{endpoint.RecordTypeAAAA}
		case !has && !p.cfg.PreferCNAME && canonicalZone(e.Targets[0]) != "":
			return []string{endpoint.RecordTypeA, endpoint.RecordTypeAAAA}
		}
	case endpoint.RecordTypeA, endpoint.RecordTypeAAAA:
		if has && strings.EqualFold(v, "true") {
			return []string{e.RecordType}
		}
	}
	return nil
}

// roundTrip writes e as a record set and reads it back, as Records would.
func (p *Provider) roundTrip(e *endpoint.Endpoint) *endpoint.Endpoint {
	rr, err := p.toRRSet(e, sameZone)
	if err != nil {
		return e
	}
	k, s := storeOf(rr)
	back := endpointOf(k, s, zone{id: sameZone})
	if back == nil {
		return e
	}
	back.DNSName = e.DNSName
	back.Labels = e.Labels
	if !e.RecordTTL.IsConfigured() && rr.AliasTarget == nil {
		back.RecordTTL = 0 // an unset TTL stays unset: it must never cause an update
	}
	return back
}

// roundTripKeeps reports a record the round trip would give back as it is, but for a nil
// ProviderSpecific: no property left, no set identifier, a type whose targets Route 53 stores as they
// are (not TXT), targets without the trailing dot Records trims, a TTL that is set or 0, and a name. It
// costs nothing, where the round trip builds a record set and an endpoint (most desired records at
// 20,000 Ingresses are such A records).
func roundTripKeeps(e *endpoint.Endpoint) bool {
	if len(e.ProviderSpecific) > 0 || e.SetIdentifier != "" || e.RecordTTL < 0 || len(e.Targets) == 0 ||
		e.RecordType == endpoint.RecordTypeTXT || !supported(e.RecordType) || strings.TrimSuffix(e.DNSName, ".") == "" {
		return false
	}
	for _, t := range e.Targets {
		if strings.HasSuffix(t, ".") {
			return false
		}
	}
	return true
}

// plainAlias returns the target and evaluate-target-health of the aliases an endpoint becomes when
// the round trip would only set those: no set identifier, no property but alias and
// aws/evaluate-target-health (a valid one), no aws/target-hosted-zone, a target Route 53 gives back
// as it is (no \ escape, one trailing dot at most). The round trip builds two record sets and six
// endpoints' worth of copies for a CNAME to a load balancer, the commonest record on EKS.
func (p *Provider) plainAlias(c *endpoint.Endpoint) (target string, eth bool, ok bool) {
	if c.SetIdentifier != "" || len(c.Targets) == 0 {
		return "", false, false
	}
	for _, ps := range c.ProviderSpecific {
		if ps.Name != propAlias && ps.Name != propEvaluateTargetHealth {
			return "", false, false
		}
	}
	eth = p.cfg.EvaluateTargetHealth
	if v, set := c.GetProviderSpecific(propEvaluateTargetHealth); set {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", false, false
		}
		eth = b
	}
	target = strings.TrimSuffix(strings.ToLower(c.Targets[0]), ".")
	if target == "" || strings.HasSuffix(target, ".") || strings.IndexByte(target, '\\') >= 0 {
		return "", false, false
	}
	if canonicalZone(target) == cloudFrontZone {
		eth = false
	}
	return target, eth, true
}

// ownProperties returns in without the properties of other providers and without
// aws/hosted-zone-id, and the first aws/hosted-zone-id (pin) if there was one. Every aws/ property is
// either stored by Route 53 or (aws/hosted-zone-id) decides where the record goes. It returns in
// itself when there is nothing to drop, and a new slice otherwise: in is never written.
func ownProperties(in endpoint.ProviderSpecific) (props endpoint.ProviderSpecific, pin string, pinned bool) {
	i := slices.IndexFunc(in, func(ps endpoint.ProviderSpecificProperty) bool {
		return !isOwnProperty(ps.Name) || ps.Name == propHostedZoneID
	})
	if i < 0 {
		return in, "", false
	}
	props = make(endpoint.ProviderSpecific, i, len(in)-1)
	copy(props, in[:i])
	for _, ps := range in[i:] {
		switch {
		case ps.Name == propHostedZoneID:
			if !pinned {
				pin, pinned = ps.Value, true
			}
		case isOwnProperty(ps.Name):
			props = append(props, ps)
		}
	}
	return props, pin, pinned
}

// isOwnProperty says whether Route 53 keeps a property (aws/hosted-zone-id included).
func isOwnProperty(name string) bool {
	switch name {
	case propAlias, propEvaluateTargetHealth, propTargetHostedZone, propHostedZoneID:
		return true
	}
	return slices.Contains(routingProps, name)
}

// withoutProperties returns in without the properties named, in itself when it holds none of them
// and a new slice otherwise (emptied, not nil, as DeleteProviderSpecific leaves it): in is never
// written.
func withoutProperties(in endpoint.ProviderSpecific, names ...string) endpoint.ProviderSpecific {
	named := func(ps endpoint.ProviderSpecificProperty) bool { return slices.Contains(names, ps.Name) }
	i := slices.IndexFunc(in, named)
	if i < 0 {
		return in
	}
	out := make(endpoint.ProviderSpecific, i, len(in)-1)
	copy(out, in[:i])
	for _, ps := range in[i+1:] {
		if !named(ps) {
			out = append(out, ps)
		}
	}
	return out
}
