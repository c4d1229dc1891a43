// Package rfc2136 is a provider that keeps zones on an RFC 2136 server (BIND 9 and compatible) in
// step: it reads each zone by AXFR and writes with DNS UPDATE messages, TSIG-signed, over TCP or DNS
// over TLS. It takes external-dns's --rfc2136-* settings. See README.md for the BIND configuration and
// for what differs from external-dns.
package rfc2136

import (
	"sync/atomic"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// Provider reads and writes the configured zones. It keeps no state between calls besides its
// settings, a message counter and, with GSS-TSIG, the negotiated contexts; every call opens its own
// connections.
type Provider struct {
	s settings
	// gss holds the GSS-TSIG contexts, one per server (nil without --rfc2136-gss-tsig).
	gss *gssKeys
	// updates counts UPDATE messages sent (probes included), for benchmarks and tests.
	updates atomic.Int64
}

// New validates the configuration. It does not contact the server: an unreachable server or a wrong
// key surfaces on the first call, as an error naming the zone and the key.
func New(cfg Config) (*Provider, error) {
	s, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	p := &Provider{s: s}
	if s.gss != nil {
		p.gss = &gssKeys{creds: s.gss, timeout: s.timeout}
	}
	return p, nil
}

// Close ends the GSS-TSIG contexts (and their Kerberos sessions).
func (p *Provider) Close() {
	if p.gss != nil {
		p.gss.close()
	}
}

// Capabilities implements provider.Provider. BIND serves wildcards; there is no place for a set
// identifier; all changes to one name go into one UPDATE message, which the server applies
// atomically.
func (p *Provider) Capabilities() provider.Capabilities {
	return provider.Capabilities{
		RecordTypes:   append([]string(nil), supportedTypes...),
		SetIdentifier: false,
		Wildcards:     true,
		DefaultTTL:    endpoint.TTL(p.defaultTTL()),
	}
}

// defaultTTL is the TTL of a record set without one: DefaultTTL, or MinTTL when higher.
func (p *Provider) defaultTTL() uint32 { return max(DefaultTTL, p.s.minTTL) }

// ttl is the TTL written for an endpoint: its own (or the default), raised to MinTTL.
func (p *Provider) ttl(ep *endpoint.Endpoint) uint32 {
	if !ep.RecordTTL.IsConfigured() {
		return p.defaultTTL()
	}
	t := min(int64(ep.RecordTTL), 1<<31-1) // RFC 2181 §8
	return max(uint32(t), p.s.minTTL)
}
