package rfc2136

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Records implements provider.Provider: one AXFR per zone, TSIG-signed unless Insecure. Records of
// the managed types are grouped into one endpoint per (name, type) with the set's TTL. The SOA, the
// NS records at a zone's apex, names that belong to a more specific configured zone, and other types
// are left out. A zone that cannot be transferred fails the whole call: a partial listing would make
// the plan re-create what it cannot see.
func (p *Provider) Records(ctx context.Context) ([]*endpoint.Endpoint, error) {
	var out []*endpoint.Endpoint
	for _, zone := range p.s.zones {
		rrs, err := p.transfer(ctx, zone)
		if err != nil {
			return nil, err
		}
		out = append(out, p.endpoints(zone, rrs)...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DNSName != out[j].DNSName {
			return out[i].DNSName < out[j].DNSName
		}
		return out[i].RecordType < out[j].RecordType
	})
	return out, nil
}

// endpoints groups the records of one zone's transfer.
func (p *Provider) endpoints(zone string, rrs []dns.RR) []*endpoint.Endpoint {
	byKey := map[endpoint.Key]*endpoint.Endpoint{}
	var out []*endpoint.Endpoint
	for _, rr := range rrs {
		h := rr.Header()
		if h.Class != dns.ClassINET {
			continue
		}
		fqdn := strings.ToLower(h.Name)
		if p.s.zones.zoneOf(fqdn) != zone {
			continue // glue or delegation data of a zone listed on its own
		}
		if h.Rrtype == dns.TypeNS && p.s.zones.isApex(fqdn) {
			continue
		}
		recordType, target, ok := rrTarget(rr)
		if !ok {
			continue // SOA and unmanaged types
		}
		key := endpoint.Key{DNSName: trimDot(fqdn), RecordType: recordType}
		ep := byKey[key]
		if ep == nil {
			ep = endpoint.NewWithTTL(key.DNSName, recordType, endpoint.TTL(h.Ttl))
			byKey[key] = ep
			out = append(out, ep)
		}
		ep.Targets = append(ep.Targets, target)
	}
	return out
}

// transfer reads a zone by AXFR, trying each server in turn while they cannot be reached.
func (p *Provider) transfer(ctx context.Context, zone string) ([]dns.RR, error) {
	var errs []error
	for _, server := range p.s.servers {
		rrs, err := p.transferFrom(ctx, zone, server)
		if err == nil {
			return rrs, nil
		}
		var rc *RcodeError
		if errors.As(err, &rc) || ctx.Err() != nil {
			return nil, err // the server answered: another one would not know better
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("zone %s: AXFR failed: %w", trimDot(zone), errors.Join(errs...))
}

// transferFrom reads a zone from one server. With GSS-TSIG, a transfer the server rejects for the
// context is tried once more with a new one.
func (p *Provider) transferFrom(ctx context.Context, zone, server string) ([]dns.RR, error) {
	rrs, err := p.transferOnce(ctx, zone, server, false)
	var rc *RcodeError
	if p.gss != nil && errors.As(err, &rc) && (rc.Rcode == dns.RcodeNotAuth || rc.TSIGError != 0) {
		return p.transferOnce(ctx, zone, server, true)
	}
	return rrs, err
}

func (p *Provider) transferOnce(ctx context.Context, zone, server string, renew bool) ([]dns.RR, error) {
	sig, err := p.signer(server, renew)
	if err != nil {
		return nil, fmt.Errorf("zone %s: AXFR: %w", trimDot(zone), err)
	}
	q := new(dns.Msg)
	q.SetAxfr(zone)
	t := &dns.Transfer{DialTimeout: p.s.timeout, ReadTimeout: p.s.timeout, WriteTimeout: p.s.timeout, TLS: forServer(p.s.tls, server)}
	keyName := ""
	if sig != nil {
		keyName = sig.name
		t.TsigProvider, t.TsigSecret = p.tsigProvider(sig)
		q.SetTsig(sig.name, sig.alg, 300, time.Now().Unix())
	}
	envs, err := t.In(q, server)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", server, err)
	}
	// Closing the connection ends the transfer goroutine when the context is cancelled mid-way.
	stop := context.AfterFunc(ctx, func() {
		if t.Conn != nil {
			_ = t.Conn.Close()
		}
	})
	defer stop()
	var rrs []dns.RR
	var failure error
	for env := range envs {
		if env.Error != nil && failure == nil {
			failure = p.transferError(zone, server, keyName, env.Error)
		}
		rrs = append(rrs, env.RR...)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if failure != nil {
		return nil, failure
	}
	return rrs, nil
}

// transferError turns miekg/dns's transfer errors into ones that say what to fix.
func (p *Provider) transferError(zone, server, key string, err error) error {
	rc := &RcodeError{Zone: trimDot(zone), Server: server, Key: key, Op: "AXFR"}
	if p.gss != nil {
		rc.Principal = p.gss.creds.principal()
	}
	var code int
	if _, scanErr := fmt.Sscanf(strings.TrimPrefix(err.Error(), "dns: "), "bad xfr rcode: %d", &code); scanErr == nil {
		rc.Rcode = code
		switch code {
		case dns.RcodeRefused:
			if p.gss != nil {
				rc.Hint = "the zone's allow-transfer must admit this host (BIND matches GSS-TSIG transfers by address: allow-transfer { ADDRESS; };)"
			} else if key == "" {
				rc.Hint = "the server does not allow unsigned transfers of this zone (allow-transfer); configure the TSIG key"
			} else {
				rc.Hint = "allow-transfer for the zone must include this key (allow-transfer { key " + trimDot(key) + "; };)"
			}
		case dns.RcodeNotAuth:
			rc.Hint = "the server is not authoritative for this zone (check --rfc2136-zone, and the view the key selects)"
		}
		return rc
	}
	if tsigFailure(err) && p.gss != nil {
		rc.Rcode = dns.RcodeNotAuth
		rc.Hint = "the answer failed the GSS-TSIG check (the context expired or the server no longer knows it)"
		return rc
	}
	if tsigFailure(err) {
		rc.Rcode = dns.RcodeNotAuth
		rc.Hint = "the answer failed the TSIG check: wrong secret or algorithm, or a key the server does not know " +
			"(check --rfc2136-tsig-keyname, --rfc2136-tsig-secret and --rfc2136-tsig-secret-alg)"
		return rc
	}
	return fmt.Errorf("zone %s: AXFR from %s: %w", trimDot(zone), server, err)
}
