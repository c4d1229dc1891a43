package source

import (
	"context"
	"fmt"
	"net/netip"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// PostProcessConfig are external-dns's settings applied to every source's endpoints.
type PostProcessConfig struct {
	// DefaultTargets (--default-targets) replace the targets of every A, AAAA and CNAME endpoint when
	// ForceDefaultTargets (--force-default-targets) is set. (Without it they apply only to DNSEndpoint
	// entries without targets, in that source.)
	DefaultTargets      []string
	ForceDefaultTargets bool
	// TargetNetFilter (--target-net-filter) keeps only targets that are IPs inside one of the prefixes
	// (so hostnames and text go, as in external-dns); ExcludeTargetNets (--exclude-target-net) drops IP
	// targets inside any. An endpoint left without targets is not published.
	TargetNetFilter   []netip.Prefix
	ExcludeTargetNets []netip.Prefix
	// MinTTL (--min-ttl, seconds) is the TTL of endpoints that set none, as in external-dns (a TTL
	// an object sets is kept, so the two tools never fight over it).
	MinTTL endpoint.TTL
	// PTR is PTR generation (--create-ptr, the record-type annotation), after the target nets and
	// before MinTTL, in external-dns v0.23's order.
	PTR PTRConfig
}

// PostProcess wraps a source with the settings. It always wraps: the record-type property is never a
// provider's, so it is taken off (and reported when it cannot be honoured) whatever is configured.
func PostProcess(src Source, cfg PostProcessConfig) Source {
	return &postProcessed{src: src, cfg: cfg}
}

type postProcessed struct {
	src Source
	cfg PostProcessConfig
}

func (p *postProcessed) AddEventHandler(fn func()) { p.src.AddEventHandler(fn) }

// ReadsUnwatched implements UnwatchedReader for the wrapped source.
func (p *postProcessed) ReadsUnwatched() bool { return ReadsUnwatched(p.src) }

// LookupObject forwards to the wrapped source, for events and status on the objects.
func (p *postProcessed) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if l, ok := p.src.(ObjectLookup); ok {
		return l.LookupObject(kind, namespace, name)
	}
	return nil, false
}

func (p *postProcessed) Endpoints(ctx context.Context) (Result, error) {
	r, err := p.src.Endpoints(ctx)
	if err != nil {
		return r, err
	}
	return p.process(r), nil
}

// ObjectKinds implements ObjectSource: the wrapped source's, except that PTR records (a PTR's
// targets are the names of every record with its address) tie objects together.
func (p *postProcessed) ObjectKinds() []string {
	if p.cfg.PTR.Managed {
		return nil
	}
	return objectKindsOf(p.src)
}

// AddObjectHandler implements ObjectSource.
func (p *postProcessed) AddObjectHandler(fn func(resource string)) { objectHandlersOf(p.src, fn) }

// ObjectEndpoints implements ObjectSource: the wrapped source's endpoints of the objects, processed as
// Endpoints processes every object's.
func (p *postProcessed) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	o, ok := p.src.(ObjectSource)
	if !ok || p.cfg.PTR.Managed {
		return Result{}, fmt.Errorf("the source cannot make the endpoints of single objects")
	}
	r, err := o.ObjectEndpoints(ctx, resources)
	if err != nil {
		return r, err
	}
	return p.process(r), nil
}

// process applies the settings to a source's result. Every step but PTR generation is per endpoint,
// or per endpoint and object.
func (p *postProcessed) process(r Result) Result {
	out := make([]*endpoint.Endpoint, 0, len(r.Endpoints))
	type origin struct {
		key      endpoint.Key
		resource string
	}
	seen := map[origin]bool{}
	for _, e := range r.Endpoints {
		eps := []*endpoint.Endpoint{e}
		if p.cfg.ForceDefaultTargets && isAddressType(e.RecordType) {
			eps = defaultTargetEndpoints(e, p.cfg.DefaultTargets)
		}
		for _, e := range eps {
			if e = p.filterTargets(e); e == nil {
				continue
			}
			// Forced defaults turn an object's A and AAAA into the same records: publish them once. Two
			// objects claiming one name stay two, for the plan to resolve and report.
			if p.cfg.ForceDefaultTargets {
				o := origin{e.Key(), e.Resource()}
				if seen[o] {
					continue
				}
				seen[o] = true
			}
			out = append(out, e)
		}
	}
	out, problems := withPTRs(out, p.cfg.PTR)
	r.Problems = append(r.Problems, problems...)
	if p.cfg.MinTTL > 0 {
		for i, e := range out {
			if !e.RecordTTL.IsConfigured() {
				e = e.DeepCopy()
				e.RecordTTL = p.cfg.MinTTL
				out[i] = e
			}
		}
	}
	r.Endpoints = out
	return r
}

// filterTargets applies the target nets; it returns nil when no target is left.
func (p *postProcessed) filterTargets(e *endpoint.Endpoint) *endpoint.Endpoint {
	if len(p.cfg.TargetNetFilter) == 0 && len(p.cfg.ExcludeTargetNets) == 0 {
		return e
	}
	var kept []string
	for _, t := range e.Targets {
		if p.targetAllowed(t) {
			kept = append(kept, t)
		}
	}
	if len(kept) == len(e.Targets) {
		return e
	}
	if len(kept) == 0 {
		return nil
	}
	c := e.DeepCopy()
	c.Targets = kept
	return c
}

func (p *postProcessed) targetAllowed(target string) bool {
	a, err := netip.ParseAddr(target)
	if err != nil {
		return len(p.cfg.TargetNetFilter) == 0 // not an IP: only an include filter drops it
	}
	a = a.Unmap()
	for _, n := range p.cfg.ExcludeTargetNets {
		if n.Contains(a) {
			return false
		}
	}
	if len(p.cfg.TargetNetFilter) == 0 {
		return true
	}
	for _, n := range p.cfg.TargetNetFilter {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

func isAddressType(t string) bool {
	return t == endpoint.RecordTypeA || t == endpoint.RecordTypeAAAA || t == endpoint.RecordTypeCNAME
}

// defaultTargetEndpoints are e's records with the default targets instead of its own: an A for the
// IPv4 targets, an AAAA for the IPv6 ones, a CNAME for a hostname, each keeping e's name, TTL, set
// identifier, labels and properties.
func defaultTargetEndpoints(e *endpoint.Endpoint, defaults []string) []*endpoint.Endpoint {
	byType := map[string][]string{}
	var order []string
	for _, t := range defaults {
		rt := endpoint.RecordTypeCNAME
		if a, err := netip.ParseAddr(t); err == nil {
			rt = endpoint.RecordTypeA
			if !a.Unmap().Is4() {
				rt = endpoint.RecordTypeAAAA
			}
		}
		if _, ok := byType[rt]; !ok {
			order = append(order, rt)
		}
		byType[rt] = append(byType[rt], t)
	}
	out := make([]*endpoint.Endpoint, 0, len(order))
	for _, rt := range order {
		c := e.DeepCopy()
		c.RecordType = rt
		c.Targets = append([]string(nil), byType[rt]...)
		out = append(out, c)
	}
	return out
}
