// Package view implements split horizon. A view is one audience of the same names — the LAN and the
// internet — with its own targets and TTL: the internal view publishes what the cluster reports, the
// external view publishes the public (WAN) address in place of private ones. Each view runs its own
// registry, provider instance (a CoreDNS etcd prefix, a built-in server view, a BIND TSIG key) and
// controller over the shared sources, so one zonekeeper replaces the two external-dns instances and
// the etcd-injector CronJob home labs run today.
package view

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// TargetMode says where a view's address targets come from.
type TargetMode string

const (
	// TargetsAsReported publishes the addresses the cluster reports.
	TargetsAsReported TargetMode = "reported"
	// TargetsPublic replaces every A target with the public IPv4 address and every AAAA target with the
	// public IPv6 address; a record set whose family has no public address is left out of the view.
	TargetsPublic TargetMode = "public"
)

// Spec configures one view.
type Spec struct {
	Name    string
	Targets TargetMode
	// TTL, when set, replaces the TTL of every record in the view.
	TTL endpoint.TTL
	// Domains limits the names the view publishes (include/exclude rules); the zero value takes all.
	Domains plan.DomainFilter
	// Provider is the provider kind publishing the view (--view-provider), "" for --provider's: the
	// internal view in CoreDNS, the external one in Cloudflare.
	Provider string
	// Provider-side placement of the view, read by the provider builder.
	CoreDNSPrefix string
	Subnets       []netip.Prefix
}

// Address is the public address in force.
type Address struct {
	V4, V6 netip.Addr
	// Source says where it came from ("static", "stun 192.0.2.1:3478", ...), for logs.
	Source string
}

// AddressSource supplies the public address and tells when it changes.
type AddressSource interface {
	Current() (Address, bool)
	Subscribe(func(Address))
}

// Source is the shared source as one view sees it.
type Source struct {
	inner   source.Source
	spec    Spec
	address AddressSource
}

var _ source.ObjectSource = (*Source)(nil)

// NewSource wraps inner for the view. address may be nil unless the view uses public targets.
func NewSource(inner source.Source, spec Spec, address AddressSource) (*Source, error) {
	if spec.Targets == TargetsPublic && address == nil {
		return nil, fmt.Errorf("view %s: targets=public needs a public address source (--public-ip or discovery)", spec.Name)
	}
	if spec.Targets == "" {
		spec.Targets = TargetsAsReported
	}
	return &Source{inner: inner, spec: spec, address: address}, nil
}

// Endpoints returns the endpoints the view publishes.
func (s *Source) Endpoints(ctx context.Context) (source.Result, error) {
	res, err := s.inner.Endpoints(ctx)
	if err != nil {
		return res, err
	}
	return s.publish(res), nil
}

// ObjectKinds implements source.ObjectSource: the view changes each endpoint on its own.
func (s *Source) ObjectKinds() []string {
	if o, ok := s.inner.(source.ObjectSource); ok {
		return o.ObjectKinds()
	}
	return nil
}

// AddObjectHandler implements source.ObjectSource; a new public address concerns every object.
func (s *Source) AddObjectHandler(fn func(resource string)) {
	if o, ok := s.inner.(source.ObjectSource); ok {
		o.AddObjectHandler(fn)
	} else {
		s.inner.AddEventHandler(func() { fn("") })
	}
	if s.spec.Targets == TargetsPublic {
		s.address.Subscribe(func(Address) { fn("") })
	}
}

// ObjectEndpoints implements source.ObjectSource: the shared source's endpoints of the objects, as
// the view publishes them.
func (s *Source) ObjectEndpoints(ctx context.Context, resources []string) (source.Result, error) {
	o, ok := s.inner.(source.ObjectSource)
	if !ok {
		return source.Result{}, fmt.Errorf("view %s: the source cannot make the endpoints of single objects", s.spec.Name)
	}
	res, err := o.ObjectEndpoints(ctx, resources)
	if err != nil {
		return res, err
	}
	return s.publish(res), nil
}

// publish is what the view makes of the shared source's endpoints.
func (s *Source) publish(res source.Result) source.Result {
	var addr Address
	if s.spec.Targets == TargetsPublic {
		addr, _ = s.address.Current()
	}
	out := make([]*endpoint.Endpoint, 0, len(res.Endpoints))
	for _, e := range res.Endpoints {
		if !s.spec.Domains.Match(e.DNSName) {
			continue
		}
		v := e.DeepCopy()
		if s.spec.Targets == TargetsPublic && !rewriteToPublic(v, addr) {
			continue
		}
		if s.spec.TTL > 0 {
			v.RecordTTL = s.spec.TTL
		}
		out = append(out, v)
	}
	res.Endpoints = out
	return res
}

// rewriteToPublic points an address record at the public address of its family; it reports false when
// that family has none. Other types (CNAME, TXT) are published as they are: a CNAME names a host, not
// an address, and ownership records must stay byte-identical.
func rewriteToPublic(e *endpoint.Endpoint, addr Address) bool {
	switch e.RecordType {
	case endpoint.RecordTypeA:
		if !addr.V4.IsValid() {
			return false
		}
		e.Targets = endpoint.Targets{addr.V4.String()}
	case endpoint.RecordTypeAAAA:
		if !addr.V6.IsValid() {
			return false
		}
		e.Targets = endpoint.Targets{addr.V6.String()}
	}
	return true
}

// AddEventHandler registers fn with the shared source, and with the public address when the view
// uses it, so a new WAN address reaches DNS like any object change.
func (s *Source) AddEventHandler(fn func()) {
	s.inner.AddEventHandler(fn)
	if s.spec.Targets == TargetsPublic {
		s.address.Subscribe(func(Address) { fn() })
	}
}

// ReadsUnwatched implements source.UnwatchedReader for the shared source.
func (s *Source) ReadsUnwatched() bool { return source.ReadsUnwatched(s.inner) }

// LookupObject passes object lookups (for Events) through to the shared source.
func (s *Source) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if l, ok := s.inner.(source.ObjectLookup); ok {
		return l.LookupObject(kind, namespace, name)
	}
	return nil, false
}

// StaticAddress is an AddressSource with a fixed address that can be replaced (--public-ip, and
// tests); Set notifies subscribers when the address changes.
type StaticAddress struct {
	mu   sync.Mutex
	addr Address
	set  bool
	subs []func(Address)
}

// Current implements AddressSource.
func (s *StaticAddress) Current() (Address, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr, s.set
}

// Subscribe implements AddressSource.
func (s *StaticAddress) Subscribe(fn func(Address)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, fn)
}

// Set replaces the address.
func (s *StaticAddress) Set(a Address) {
	s.mu.Lock()
	changed := !s.set || a.V4 != s.addr.V4 || a.V6 != s.addr.V6
	s.addr, s.set = a, true
	subs := append([]func(Address){}, s.subs...)
	s.mu.Unlock()
	if changed {
		for _, fn := range subs {
			fn(a)
		}
	}
}
