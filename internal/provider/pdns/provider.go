// Package pdns is a provider that writes records to a PowerDNS Authoritative server through its HTTP
// API (4.1 and later; tested against 4.7), configured like external-dns's pdns provider. See README.md
// for the settings, what is written, and what differs from external-dns.
package pdns

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Provider reads and writes record sets of the managed zones of one PowerDNS server. Every call lists
// the zones (one GET, with their SOA serials); the zones' rrsets are cached with their serial and kept
// in step with its own writes, so a zone is read again only when its serial moved (see CheckZones).
type Provider struct {
	api      *client
	filter   domainFilter
	maxPatch int
	// isolateByMessage lets a 422 naming one rrset split that rrset off directly instead of bisecting;
	// tests turn it off to exercise the bisection.
	isolateByMessage bool
	now              func() time.Time

	// opMu serialises Records, ApplyChanges and CheckZones, which read and update the cache.
	opMu sync.Mutex
	mu   sync.Mutex
	// cache holds each managed zone's rrsets by zone id; nil until the first listing.
	cache map[string]*zoneCache
	// probed is the zone list the last CheckZones read, which the next Records uses instead of
	// reading it again (the controller lists right after probing); hasProbed says it is there.
	probed    []zone
	hasProbed bool
}

// New checks the configuration and returns the provider. It makes no request: an unreachable server
// surfaces on the first call.
func New(cfg Config) (*Provider, error) {
	cfg = cfg.withDefaults()
	base, err := cfg.baseURL()
	if err != nil {
		return nil, err
	}
	key, err := cfg.apiKey()
	if err != nil {
		return nil, err
	}
	hc, err := cfg.httpClient()
	if err != nil {
		return nil, err
	}
	return &Provider{
		api:      &client{http: hc, base: base, server: cfg.ServerID, apiKey: key},
		filter:   newDomainFilter(cfg.DomainFilter),
		maxPatch: cfg.MaxPatchBytes,

		isolateByMessage: true,
		now:              time.Now,
	}, nil
}

// Capabilities implements provider.Provider. PowerDNS serves stored wildcards; a record set has one
// TTL and no set identifier. The changes of one zone are applied in one transaction when they fit in
// one PATCH, but a rejected record set is split off and the rest applied, so no per-name atomicity is
// promised.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes:   recordTypes,
		SetIdentifier: false,
		Wildcards:     true,
		DefaultTTL:    DefaultTTL,
	}
}

// zones lists the server's zones and keeps the managed ones.
func (p *Provider) zones(ctx context.Context) ([]zone, error) {
	var all []zoneInfo
	if err := p.api.do(ctx, "GET", p.api.zonesPath(), nil, &all); err != nil {
		return nil, fmt.Errorf("listing zones: %w", err)
	}
	return p.filter.managedZones(all), nil
}

func (p *Provider) supports(recordType string) bool {
	return p.Capabilities().Supports(recordType)
}

var _ provider.Provider = (*Provider)(nil)

// ttlOf is the TTL written for an endpoint: its own, else DefaultTTL.
func ttlOf(e *endpoint.Endpoint) int64 {
	if e.RecordTTL.IsConfigured() {
		return int64(e.RecordTTL)
	}
	return DefaultTTL
}
