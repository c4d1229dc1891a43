package coredns

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// change is one validated change, with its name and targets in canonical form. ep is the endpoint as
// the caller gave it, for error reports.
type change struct {
	action  provider.Action
	ep      *endpoint.Endpoint
	name    string
	oldType string // updates only: the type before the change
	set     recordSet
}

// recordSet is what one (name, type) holds.
type recordSet struct {
	recordType string
	targets    []string
	ttl        endpoint.TTL
	group      string
}

func (s recordSet) records() []record {
	out := make([]record, len(s.targets))
	for i, t := range s.targets {
		out[i] = record{Type: s.recordType, Target: t, TTL: s.ttl, Group: s.group}
	}
	return out
}

func (p *Provider) supports(recordType string) bool {
	return p.Capabilities().Supports(recordType)
}

// checkName validates and normalises the name of any change.
func (p *Provider) checkName(ep *endpoint.Endpoint) (string, error) {
	if ep.SetIdentifier != "" {
		return "", errors.New("set identifiers are not supported by the coredns provider")
	}
	name, err := endpoint.NormalizeDNSName(ep.DNSName)
	if err != nil {
		return "", fmt.Errorf("invalid name %q: %v", ep.DNSName, err)
	}
	if !p.zones.contains(name) {
		return "", p.zones.notInZones(name)
	}
	if reservedName(name) {
		return "", fmt.Errorf("name %s is reserved by CoreDNS (apex.dns and ns.dns hold the zone's apex and NS data)", name)
	}
	if !p.supports(ep.RecordType) {
		return "", fmt.Errorf("record type %s is not supported by the coredns provider", ep.RecordType)
	}
	return name, nil
}

// checkDelete validates a delete. Deletes are only checked for zone and type, so that records written
// by other tools (even ones zonekeeper would not write, like wildcards) can be removed.
func (p *Provider) checkDelete(ep *endpoint.Endpoint) (change, error) {
	name, err := p.checkName(ep)
	if err != nil {
		return change{}, err
	}
	return change{action: provider.ActionDelete, ep: ep, name: name, set: recordSet{recordType: ep.RecordType}}, nil
}

// checkWrite validates a create, or the new side of an update.
func (p *Provider) checkWrite(action provider.Action, ep *endpoint.Endpoint) (change, error) {
	name, err := p.checkName(ep)
	if err != nil {
		return change{}, err
	}
	for _, label := range strings.Split(name, ".") {
		// CoreDNS treats "*" and "any" in a query as wildcards and stored "*" labels as plain text, so
		// neither can be served as the record the endpoint asks for.
		if label == "*" || label == "any" {
			return change{}, fmt.Errorf("name %s: CoreDNS cannot serve a stored %q label (etcd records are not DNS wildcards)", name, label)
		}
	}
	if len(ep.Targets) == 0 {
		return change{}, fmt.Errorf("record set %s has no targets", ep.Key())
	}
	if ep.RecordTTL < 0 || ep.RecordTTL > math.MaxUint32 {
		return change{}, fmt.Errorf("TTL %d out of range", ep.RecordTTL)
	}
	set := recordSet{recordType: ep.RecordType, ttl: ep.RecordTTL}
	set.group, _ = ep.GetProviderSpecific(GroupProperty)
	for _, t := range ep.Targets {
		v, err := endpoint.ValidateTarget(ep.RecordType, t)
		if err != nil {
			return change{}, fmt.Errorf("target %q: %v", t, err)
		}
		if !containsTarget(set.targets, v) {
			set.targets = append(set.targets, v)
		}
	}
	if ep.RecordType == endpoint.RecordTypeCNAME {
		if len(set.targets) > 1 {
			return change{}, fmt.Errorf("a CNAME has one target, got %d", len(set.targets))
		}
		if p.zones.isApex(name) {
			return change{}, fmt.Errorf("a CNAME cannot be at the zone apex %s", name)
		}
	}
	return change{action: action, ep: ep, name: name, set: set}, nil
}

// checkUpdate validates an update. Old and new must name the same record set (a different type is
// allowed: it replaces the old type at the same name).
func (p *Provider) checkUpdate(old, new *endpoint.Endpoint) (change, error) {
	c, err := p.checkWrite(provider.ActionUpdate, new)
	if err != nil {
		return change{}, err
	}
	oldName, err := p.checkName(old)
	if err != nil {
		return change{}, fmt.Errorf("old record set: %v", err)
	}
	if oldName != c.name {
		return change{}, fmt.Errorf("an update cannot move a record set from %s to %s", oldName, c.name)
	}
	c.oldType = old.RecordType
	return c, nil
}
