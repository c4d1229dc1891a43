package aws

import (
	"fmt"
	"strconv"
	"strings"

	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// recordTypes are the types the provider reads and writes.
var recordTypes = []string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
	endpoint.RecordTypeSRV, endpoint.RecordTypeMX, endpoint.RecordTypeNS, "CAA", "PTR", endpoint.RecordTypeNAPTR,
}

func supported(recordType string) bool {
	for _, t := range recordTypes {
		if t == recordType {
			return true
		}
	}
	return false
}

// isAlias reports whether e is written as an alias record set: an A or AAAA (or a CNAME that was not
// adjusted) with alias=true.
func isAlias(e *endpoint.Endpoint) bool {
	v, ok := e.GetProviderSpecific(propAlias)
	if !ok || !strings.EqualFold(v, "true") {
		return false
	}
	switch e.RecordType {
	case endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME:
		return true
	}
	return false
}

// toRRSet builds the record set Route 53 stores for e in the zone with id zoneID. Errors name the field.
func (p *Provider) toRRSet(e *endpoint.Endpoint, zoneID string) (*r53types.ResourceRecordSet, error) {
	if !supported(e.RecordType) {
		return nil, fmt.Errorf("record type %s is not supported by the aws provider", e.RecordType)
	}
	if len(e.Targets) == 0 {
		return nil, fmt.Errorf("no targets")
	}
	pol, err := routingOf(e)
	if err != nil {
		return nil, err
	}
	rr := &r53types.ResourceRecordSet{Name: ptr(fqdn(e.DNSName)), Type: r53types.RRType(e.RecordType)}
	if e.SetIdentifier != "" {
		rr.SetIdentifier = ptr(e.SetIdentifier)
	}
	pol.apply(rr)
	if isAlias(e) {
		if e.RecordType == endpoint.RecordTypeCNAME {
			rr.Type = r53types.RRTypeA
		}
		if len(e.Targets) != 1 {
			return nil, fmt.Errorf("an alias has exactly one target, got %d", len(e.Targets))
		}
		target := normName(e.Targets[0])
		zid, ok := e.GetProviderSpecific(propTargetHostedZone)
		if !ok || zid == "" {
			zid = canonicalZone(target)
		}
		if zid == "" {
			zid = zoneID // an alias to a record set of the same zone
		}
		eth := p.cfg.EvaluateTargetHealth
		if v, ok := e.GetProviderSpecific(propEvaluateTargetHealth); ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("aws-evaluate-target-health %q is neither true nor false", v)
			}
			eth = b
		}
		if zid == cloudFrontZone {
			eth = false // Route 53 refuses target health on CloudFront aliases
		}
		rr.AliasTarget = &r53types.AliasTarget{DNSName: ptr(fqdn(target)), HostedZoneId: ptr(bareZoneID(zid)), EvaluateTargetHealth: eth}
		return rr, nil
	}
	ttl := int64(DefaultTTL)
	if e.RecordTTL.IsConfigured() {
		ttl = int64(e.RecordTTL)
	}
	rr.TTL = &ttl
	for _, t := range e.Targets {
		v := t
		if e.RecordType == endpoint.RecordTypeTXT {
			v = txtValue(t)
		}
		rr.ResourceRecords = append(rr.ResourceRecords, r53types.ResourceRecord{Value: ptr(v)})
	}
	return rr, nil
}

// endpointOf is the endpoint Records returns for the stored record set k, or nil for sets zonekeeper
// never manages (SOA, the zone's own NS, unsupported types).
func endpointOf(k rrKey, s storedSet, z zone) *endpoint.Endpoint {
	name, t := k.name, k.recordType
	if t == "SOA" || (t == endpoint.RecordTypeNS && name == z.name) || !supported(t) {
		return nil
	}
	var e *endpoint.Endpoint
	if at := s.alias(); at != nil {
		target := normName(deref(at.DNSName))
		e = endpoint.NewWithTTL(name, t, DefaultTTL, target)
		e.SetProviderSpecific(propAlias, "true")
		e.SetProviderSpecific(propEvaluateTargetHealth, strconv.FormatBool(at.EvaluateTargetHealth))
		if zid := bareZoneID(deref(at.HostedZoneId)); zid != canonicalZone(target) && zid != z.id {
			e.SetProviderSpecific(propTargetHostedZone, zid)
		}
	} else {
		targets := s.values
		if t == endpoint.RecordTypeTXT {
			targets = make([]string, len(s.values))
			for i, v := range s.values {
				targets[i] = txtTarget(v)
			}
		}
		var ttl endpoint.TTL
		if s.ttl != noTTL {
			ttl = endpoint.TTL(s.ttl)
		}
		e = endpoint.NewWithTTL(name, t, ttl, targets...)
	}
	e.SetIdentifier = k.setID
	if s.rest != nil {
		e.ProviderSpecific = append(e.ProviderSpecific, routingProperties(s.rest)...)
	}
	return e
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
