package source

import (
	"fmt"
	"slices"
	"strings"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// PTRConfig is external-dns v0.23's PTR generation: with PTR in --managed-record-types, the A and AAAA
// records of an object whose record-type annotation (or DNSEndpoint providerSpecific record-type) is
// "ptr" get PTR records in in-addr.arpa / ip6.arpa; with --create-ptr every A and AAAA record does,
// unless its object opts out with an empty record-type.
type PTRConfig struct {
	// Managed: PTR is in --managed-record-types. Without it no PTR is made, and a record-type asking
	// for one is a problem (external-dns v0.23 leaves it unread).
	Managed bool
	// Create is --create-ptr (it requires Managed).
	Create bool
	// InDomainFilter, when set, says whether --domain-filter selects a name. A PTR it leaves out is not
	// made (the plan would drop it, as external-dns's does, without a word); an object that asked for
	// it with record-type hears why.
	InDomainFilter func(name string) bool
}

// withPTRs appends the PTR records of the A and AAAA endpoints that ask for one, as external-dns v0.23's
// PTR source wrapper does: one PTR record set per address, its targets the names of every record with
// that address (in order of appearance), its TTL the lowest of theirs (an unset TTL is the lowest). A
// wildcard name gets no PTR. The record-type property is taken off every endpoint (it is not a
// provider's), and each one that cannot be honoured is a problem on its object. Each PTR carries the
// resource of the first record that asked for it, so that its object hears of a refusal.
func withPTRs(eps []*endpoint.Endpoint, cfg PTRConfig) ([]*endpoint.Endpoint, []endpoint.Problem) {
	type ptr struct {
		names    []string
		ttl      endpoint.TTL
		resource string
		asker    *endpoint.Endpoint // the first record whose object asked with record-type
	}
	byAddr := map[string]*ptr{}
	var order []string
	var problems []endpoint.Problem
	reported := map[string]bool{}
	problem := func(e *endpoint.Endpoint, value, reason string) {
		field := "metadata.annotations[record-type]"
		if strings.HasPrefix(e.Resource(), "crd/") {
			field = "spec.endpoints[].providerSpecific[record-type]"
		}
		p := endpoint.Problem{Object: endpoint.ResourceRef(e.Resource()), Field: field, Value: value, Reason: reason}
		if k := p.Error(); !reported[k] {
			reported[k] = true
			problems = append(problems, p)
		}
	}
	for i, e := range eps {
		enabled, asked := cfg.Managed && cfg.Create, false
		if v, set := e.GetProviderSpecific(endpoint.ProviderSpecificRecordType); set {
			e = e.DeepCopy()
			e.DeleteProviderSpecific(endpoint.ProviderSpecificRecordType)
			eps[i] = e
			asks := strings.EqualFold(strings.TrimSpace(v), endpoint.RecordTypePTR)
			switch {
			case !cfg.Managed:
				if asks {
					problem(e, v, "no PTR record is made: PTR is not in --managed-record-types")
				}
			case !ptrCapable(e):
				problem(e, v, fmt.Sprintf("applies to A and AAAA records only: %s %s gets no PTR record", e.RecordType, e.DNSName))
			case !asks && strings.TrimSpace(v) != "":
				problem(e, v, "must be ptr, or empty to opt out of --create-ptr: this value opts out, as in external-dns")
			}
			enabled, asked = cfg.Managed && asks, cfg.Managed && asks
		}
		if !enabled || !ptrCapable(e) {
			continue
		}
		for _, addr := range e.Targets {
			p, ok := byAddr[addr]
			if !ok {
				p = &ptr{ttl: e.RecordTTL, resource: e.Resource()}
				byAddr[addr] = p
				order = append(order, addr)
			}
			p.ttl = min(p.ttl, e.RecordTTL)
			if asked && p.asker == nil {
				p.asker = e
			}
			if !slices.Contains(p.names, e.DNSName) {
				p.names = append(p.names, e.DNSName)
			}
		}
	}
	for _, addr := range order {
		p := byAddr[addr]
		rev, err := dns.ReverseAddr(addr)
		if err != nil {
			continue // A and AAAA targets are addresses: validated by every source
		}
		if cfg.InDomainFilter != nil && !cfg.InDomainFilter(strings.TrimSuffix(rev, ".")) {
			if p.asker != nil {
				problem(p.asker, "ptr", fmt.Sprintf("no PTR record %s: it is outside --domain-filter (add its reverse zone)", strings.TrimSuffix(rev, ".")))
			}
			continue
		}
		ptrEp := endpoint.NewWithTTL(rev, endpoint.RecordTypePTR, p.ttl, p.names...)
		if p.resource != "" {
			ptrEp.Labels[endpoint.ResourceLabelKey] = p.resource
		}
		eps = append(eps, ptrEp)
	}
	return eps, problems
}

// ptrCapable: only a non-wildcard A or AAAA record maps back from its address.
func ptrCapable(e *endpoint.Endpoint) bool {
	return (e.RecordType == endpoint.RecordTypeA || e.RecordType == endpoint.RecordTypeAAAA) && !strings.HasPrefix(e.DNSName, "*.")
}
