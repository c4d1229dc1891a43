// Package builtin is the provider for zonekeeper's own DNS server (internal/dnsserver): it writes one
// view of the server. The server hosts every view; the controller runs one registry and one provider
// per view, each with its own sources, so split horizon is a fan-out above the provider.
package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/dnsserver"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Provider writes the records of one view of a dnsserver.Server.
type Provider struct {
	srv  *dnsserver.Server
	view string

	// mu serialises ApplyChanges, so records always equals what the view serves from us.
	mu sync.Mutex
	// records are the record sets as they were written (targets as given), so Records returns exactly
	// what the plan sent and a re-plan finds nothing to change.
	records map[endpoint.Key]*endpoint.Endpoint
	// version moves with every ApplyChanges that changed records (provider.ListingVersioner).
	version uint64
}

var _ provider.ExactWriter = (*Provider)(nil)

// ListingVersion implements provider.ListingVersioner: records change only through ApplyChanges, so
// the version is always known.
func (p *Provider) ListingVersion() (uint64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.version, true
}

// ListsExactlyWhatItWrote implements provider.ExactWriter: Records lists records, which hold the
// accepted record sets as they were sent (the name normalised, as the plan sends it).
func (p *Provider) ListsExactlyWhatItWrote() bool { return true }

// New returns the provider for a view of the server.
func New(srv *dnsserver.Server, view string) (*Provider, error) {
	found := false
	for _, v := range srv.Views() {
		found = found || v == view
	}
	if !found {
		return nil, fmt.Errorf("builtin provider: the DNS server has no view %q (views: %s)", view, strings.Join(srv.Views(), ", "))
	}
	return &Provider{srv: srv, view: view, records: map[endpoint.Key]*endpoint.Endpoint{}}, nil
}

// Capabilities implements provider.Provider.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes: append([]string(nil), recordTypes...),
		Wildcards:   true,
		DefaultTTL:  endpoint.TTL(p.srv.DefaultTTL()),
	}
}

// Records implements provider.Provider. The zone-file records and the apex SOA and NS are served but
// not listed: they are not the controller's to change. It reports the listing version of what it
// returns to a caller that asks (provider.WithListedVersion).
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	provider.ReportListedVersion(ctx, p.version)
	out := make([]*endpoint.Endpoint, 0, len(p.records))
	for _, e := range p.records {
		out = append(out, e.DeepCopy())
	}
	endpoint.SortEndpoints(out)
	return out, nil
}

// ApplyChanges implements provider.Provider. Changes are applied in the order deletes, updates,
// creates; each one is checked alone and a rejected one is listed in the *provider.ApplyError while
// the others apply. Everything accepted becomes visible to queries at once, with one new SOA serial.
func (p *Provider) ApplyChanges(ctx context.Context, changes *plan.Changes) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var rejected []provider.RejectedChange
	reject := func(a provider.Action, e *endpoint.Endpoint, err error) {
		rejected = append(rejected, provider.RejectedChange{Action: a, Endpoint: e, Err: err})
	}
	p.version++ // whatever is accepted below changes the listing; a new version is always safe
	err := p.srv.Update(p.view, func(tx *dnsserver.Txn) {
		for _, e := range changes.Delete {
			if err := p.remove(tx, e); err != nil {
				reject(provider.ActionDelete, e, err)
			}
		}
		for i, e := range changes.UpdateNew {
			old := e
			if i < len(changes.UpdateOld) {
				old = changes.UpdateOld[i]
			}
			if err := p.update(tx, old, e); err != nil {
				reject(provider.ActionUpdate, e, err)
			}
		}
		for _, e := range changes.Create {
			if err := p.put(tx, e, false); err != nil {
				reject(provider.ActionCreate, e, err)
			}
		}
	})
	if err != nil {
		return err
	}
	if len(rejected) > 0 {
		return &provider.ApplyError{Rejected: rejected}
	}
	return nil
}

// key returns the canonical identity of an endpoint and its FQDN.
func key(e *endpoint.Endpoint) (endpoint.Key, string, error) {
	name, err := endpoint.NormalizeDNSName(e.DNSName)
	if err != nil {
		return endpoint.Key{}, "", fmt.Errorf("dnsName %q: %v", e.DNSName, err)
	}
	if e.SetIdentifier != "" {
		return endpoint.Key{}, "", fmt.Errorf("set identifiers are not supported by the built-in server (setIdentifier %q)", e.SetIdentifier)
	}
	return endpoint.Key{DNSName: name, RecordType: e.RecordType}, dns.Fqdn(name), nil
}

// put writes a record set; replace allows overwriting an existing one (an update).
func (p *Provider) put(tx *dnsserver.Txn, e *endpoint.Endpoint, replace bool) error {
	k, fqdn, err := key(e)
	if err != nil {
		return err
	}
	if _, ok := p.records[k]; ok && !replace {
		return fmt.Errorf("record set %s already exists", k)
	}
	if len(e.Targets) == 0 {
		return fmt.Errorf("record set %s has no targets", k)
	}
	ttl := p.srv.DefaultTTL()
	if e.RecordTTL.IsConfigured() {
		if e.RecordTTL > endpoint.MaxTTL {
			return fmt.Errorf("recordTTL %d is above %d", e.RecordTTL, endpoint.MaxTTL)
		}
		ttl = uint32(e.RecordTTL)
	}
	rrs, err := toRRs(e, fqdn, ttl)
	if err != nil {
		return err
	}
	if err := tx.Replace(fqdn, rrs[0].Header().Rrtype, rrs); err != nil {
		return err
	}
	c := e.DeepCopy()
	c.DNSName = k.DNSName
	p.records[k] = c
	return nil
}

// remove deletes a record set.
func (p *Provider) remove(tx *dnsserver.Txn, e *endpoint.Endpoint) error {
	k, fqdn, err := key(e)
	if err != nil {
		return err
	}
	if _, ok := p.records[k]; !ok {
		return fmt.Errorf("record set %s does not exist", k)
	}
	if err := tx.Replace(fqdn, dns.StringToType[k.RecordType], nil); err != nil {
		return err
	}
	delete(p.records, k)
	return nil
}

// update replaces old by e. When the key changes, old is removed first and put back if e is refused,
// so a rejected update leaves the record set as it was.
func (p *Provider) update(tx *dnsserver.Txn, old, e *endpoint.Endpoint) error {
	ok, _, err := key(old)
	if err != nil {
		return err
	}
	nk, _, err := key(e)
	if err != nil {
		return err
	}
	prev, exists := p.records[ok]
	if !exists {
		return fmt.Errorf("record set %s does not exist", ok)
	}
	if ok == nk {
		return p.put(tx, e, true)
	}
	if err := p.remove(tx, old); err != nil {
		return err
	}
	if err := p.put(tx, e, false); err != nil {
		if rerr := p.put(tx, prev, false); rerr != nil {
			return fmt.Errorf("%v (and %s could not be restored: %v)", err, ok, rerr)
		}
		return err
	}
	return nil
}
