// Package inmemory is a provider that keeps zones in process memory. It serves the offline quickstart,
// `zonekeeper plan` and unit tests of the stages above the provider, and it passes the same conformance
// suite as the real backends, including per-change rejection.
package inmemory

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Provider stores record sets per zone. The zero value is not usable; call New.
type Provider struct {
	mu      sync.RWMutex
	zones   []string // zone names, normalised; a record must fall under one of them
	records map[endpoint.Key]*endpoint.Endpoint
	// byName indexes the keys of each name, so the CNAME rule checks only the name's own record sets.
	byName map[string]map[endpoint.Key]struct{}
}

// New returns a provider serving the given zones. With no zones, every name is accepted.
func New(zones ...string) *Provider {
	p := &Provider{records: map[endpoint.Key]*endpoint.Endpoint{}, byName: map[string]map[endpoint.Key]struct{}{}}
	for _, z := range zones {
		p.zones = append(p.zones, strings.ToLower(strings.TrimSuffix(z, ".")))
	}
	return p
}

// Capabilities implements provider.Provider.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes: []string{
			endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
			endpoint.RecordTypeSRV, endpoint.RecordTypeNS, endpoint.RecordTypeMX, endpoint.RecordTypePTR,
			endpoint.RecordTypeDNAME, endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA,
		},
		SetIdentifier: true,
		Wildcards:     true,
		DefaultTTL:    300,
	}
}

// Records implements provider.Provider.
func (p *Provider) Records(context.Context) ([]*endpoint.Endpoint, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]*endpoint.Endpoint, 0, len(p.records))
	for _, e := range p.records {
		out = append(out, e.DeepCopy())
	}
	endpoint.SortEndpoints(out)
	return out, nil
}

// ApplyChanges implements provider.Provider. Each change is checked on its own, the way a DNS server
// checks an UPDATE: a create of an existing record set, an update or delete of a missing one, a name
// outside the zones, or a CNAME beside other data is rejected, and the other changes still apply.
func (p *Provider) ApplyChanges(_ context.Context, changes *plan.Changes) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var rejected []provider.RejectedChange
	reject := func(a provider.Action, e *endpoint.Endpoint, err error) {
		rejected = append(rejected, provider.RejectedChange{Action: a, Endpoint: e, Err: err})
	}
	for _, e := range changes.Delete {
		if _, ok := p.records[e.Key()]; !ok {
			reject(provider.ActionDelete, e, fmt.Errorf("record set %s does not exist", e.Key()))
			continue
		}
		p.remove(e.Key())
	}
	for i, e := range changes.UpdateNew {
		old := e
		if i < len(changes.UpdateOld) {
			old = changes.UpdateOld[i]
		}
		if _, ok := p.records[old.Key()]; !ok {
			reject(provider.ActionUpdate, e, fmt.Errorf("record set %s does not exist", old.Key()))
			continue
		}
		if err := p.check(e, old.Key()); err != nil {
			reject(provider.ActionUpdate, e, err)
			continue
		}
		p.remove(old.Key())
		p.put(e)
	}
	for _, e := range changes.Create {
		if _, ok := p.records[e.Key()]; ok {
			reject(provider.ActionCreate, e, fmt.Errorf("record set %s already exists", e.Key()))
			continue
		}
		if err := p.check(e, endpoint.Key{}); err != nil {
			reject(provider.ActionCreate, e, err)
			continue
		}
		p.put(e)
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

// check applies the zone and CNAME rules to a record set about to be written (replacing `replacing`).
func (p *Provider) check(e *endpoint.Endpoint, replacing endpoint.Key) error {
	if !p.inZones(e.DNSName) {
		return fmt.Errorf("name %s is not in any zone of this provider (%s)", e.DNSName, strings.Join(p.zones, ", "))
	}
	if len(e.Targets) == 0 {
		return fmt.Errorf("record set %s has no targets", e.Key())
	}
	for k := range p.byName[e.DNSName] {
		if k == replacing || k.SetIdentifier != e.SetIdentifier || k.RecordType == e.RecordType {
			continue
		}
		if k.RecordType == endpoint.RecordTypeCNAME || e.RecordType == endpoint.RecordTypeCNAME {
			return fmt.Errorf("a CNAME cannot share the name %s with other data (%s exists)", e.DNSName, k.RecordType)
		}
	}
	return nil
}

func (p *Provider) put(e *endpoint.Endpoint) {
	k := e.Key()
	p.records[k] = e.DeepCopy()
	if p.byName[k.DNSName] == nil {
		p.byName[k.DNSName] = map[endpoint.Key]struct{}{}
	}
	p.byName[k.DNSName][k] = struct{}{}
}

func (p *Provider) remove(k endpoint.Key) {
	delete(p.records, k)
	delete(p.byName[k.DNSName], k)
	if len(p.byName[k.DNSName]) == 0 {
		delete(p.byName, k.DNSName)
	}
}

func (p *Provider) inZones(name string) bool {
	if len(p.zones) == 0 {
		return true
	}
	for _, z := range p.zones {
		if endpoint.InDomain(name, z) {
			return true
		}
	}
	return false
}
