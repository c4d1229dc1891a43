package source

import (
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Kernel is the part of the source code that every kind of object shares: the annotation rules, the
// filters, the templates, target validation and record shaping. Sources that live in their own package
// (internal/source/gateway, istio, ...) turn their objects into endpoints through it, so that an
// annotation means the same thing on a Service, an Ingress, an HTTPRoute or an Istio Gateway.
type Kernel struct {
	c *compiled
}

// NewKernel checks cfg once; every error names its flag.
func NewKernel(cfg Config) (*Kernel, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	return &Kernel{c: c}, nil
}

// Config returns the configuration the kernel was built from.
func (k *Kernel) Config() Config { return k.c.Config }

// Problems collects the problems of one generation pass.
type Problems struct {
	list problemList
}

// Items returns the problems collected so far, the unread annotations of the objects read since the
// last call included.
func (p *Problems) Items() []endpoint.Problem {
	p.list.reportUnreadLookups()
	return p.list.items
}

// Object is one Kubernetes object being turned into endpoints.
type Object struct {
	in objectInput
	k  *Kernel
}

// Object starts generation for one object; its problems go to problems.
func (k *Kernel) Object(ref endpoint.ObjectRef, annotations map[string]string, problems *Problems) *Object {
	return &Object{k: k, in: objectInput{ref: ref, annotations: annotations, reader: k.c.annotations, problems: &problems.list}}
}

// ReportUnread asks for every annotation under our prefixes that the object's source has not looked
// up by the time the problems are collected to be reported on it, as having no effect on a kind.
func (o *Object) ReportUnread(kind string) { o.in.problems.checkReads(&o.in, kind) }

// Admitted applies the filters every source shares: --namespace, --label-filter, --annotation-filter
// and the controller annotation.
func (o *Object) Admitted(objLabels map[string]string) bool {
	return o.k.c.admitsObject(&o.in, objLabels)
}

// Ref names the object.
func (o *Object) Ref() endpoint.ObjectRef { return o.in.ref }

// Problem records bad input in one field of the object.
func (o *Object) Problem(field, value, reason string) { o.in.problem(field, value, reason) }

// HostnameAnnotation returns the valid names of the hostname annotation (none under
// --ignore-hostname-annotation).
func (o *Object) HostnameAnnotation() []string {
	if o.k.c.IgnoreHostnameAnnotation {
		o.in.read |= readBit(keyHostname) // ignored as the flag asks, not silently
		return nil
	}
	return o.in.hostnames(keyHostname)
}

// TargetAnnotation returns the targets of the target annotation; present is false when it is absent
// or empty, so that the object's own addresses apply.
func (o *Object) TargetAnnotation() (t Targets, present bool) {
	in, ok := o.in.annotationTargets()
	return Targets{t: in}, ok
}

// HostnameSource returns the value of a hostname-source annotation (ingress-hostname-source,
// gateway-hostname-source): "annotation-only", "defined-hosts-only", or "" for both.
func (o *Object) HostnameSource(key string) string {
	return o.in.choice(key, hostnameSourceAnnotation, hostnameSourceDefined)
}

// The values HostnameSource returns, and the annotation keys it takes.
const (
	HostnameSourceAnnotationOnly = hostnameSourceAnnotation
	HostnameSourceDefinedOnly    = hostnameSourceDefined
	KeyGatewayHostnameSource     = keyGatewayHostnameSource
	KeyIngressHostnameSource     = keyIngressHostnameSource
)

// PrefixedAnnotation finds an annotation that is not one of the kernel's keys (external-dns's ingress
// annotation on Istio and Gloo Gateways) under the prefixes the kernel reads, in their order: its full
// key and value, or "", "" when none sets it.
func (k *Kernel) PrefixedAnnotation(ann map[string]string, key string) (fullKey, value string) {
	for _, p := range k.c.annotations.prefixes {
		if v := ann[p+key]; v != "" {
			return p + key, v
		}
	}
	return "", ""
}

// TemplateHostnames executes --fqdn-template over obj (nil without a template).
func (o *Object) TemplateHostnames(obj any) []string {
	return o.k.c.templateHostnames(&o.in, obj)
}

// ApplyTargetTemplates adds to eps, the records an object made from its own names, external-dns v0.23's
// template records for sources whose template names take the --target-template targets (gloo-proxy):
// the --fqdn-target-template pairs, then the --fqdn-template names, each only while eps is empty or
// with --combine-fqdn-annotation. view is what the templates run over; m the records' metadata.
func (o *Object) ApplyTargetTemplates(m RecordMeta, eps []*endpoint.Endpoint, view any) []*endpoint.Endpoint {
	return o.k.c.applyTargetTemplates(&o.in, m.m, eps, 0, view, nil)
}

// HasTemplate reports whether --fqdn-template is set, and whether its names are combined with the
// object's own (--combine-fqdn-annotation).
func (k *Kernel) HasTemplate() (set, combine bool) {
	return k.c.fqdnTemplate != nil, k.c.CombineFQDNAndAnnotation
}

// NormalizeHost validates one hostname from a spec field; a bad one becomes a Problem and "" is
// returned.
func (o *Object) NormalizeHost(field, host string) string {
	n, err := endpoint.NormalizeDNSName(host)
	if err != nil {
		o.Problem(field, host, err.Error())
		return ""
	}
	return n
}

// Meta returns what every endpoint of this object carries: the resource label (for example
// "httproute/ns/name"), the TTL, the set identifier and the provider-specific properties, all from
// the object's annotations.
func (o *Object) Meta(resource string) RecordMeta {
	o.in.read |= recordsMade
	return RecordMeta{m: recordMeta{
		resource:         resource,
		ttl:              o.in.ttl(),
		setIdentifier:    o.in.setIdentifier(),
		providerSpecific: o.in.providerSpecific(),
	}}
}

// MetaFrom is Meta with the TTL, set identifier and properties read from other, for kinds where a
// second object (an Istio VirtualService's Gateway, say) also carries annotations: values set on o win.
func (o *Object) MetaFrom(resource string, other *Object) RecordMeta {
	m := o.Meta(resource)
	if m.m.ttl == 0 {
		m.m.ttl = other.in.ttl()
	}
	if m.m.setIdentifier == "" {
		m.m.setIdentifier = other.in.setIdentifier()
	}
	if len(m.m.providerSpecific) == 0 {
		m.m.providerSpecific = other.in.providerSpecific()
	}
	return m
}

// Targets are validated record targets grouped by the record type they call for.
type Targets struct {
	t targets
}

// Add validates one raw target (an IP address or a hostname) read from field of o.
func (t *Targets) Add(o *Object, field, raw string) { t.t.add(&o.in, field, raw) }

// AddAll adds every target of u.
func (t *Targets) AddAll(u Targets) { t.t.addAll(u.t) }

// Empty reports whether there is no target.
func (t Targets) Empty() bool { return t.t.empty() }

// RecordMeta is what every endpoint of one object carries besides its name and targets.
type RecordMeta struct {
	m recordMeta
}

// Endpoints returns one endpoint per record type that has targets.
func (m RecordMeta) Endpoints(name string, t Targets) []*endpoint.Endpoint {
	return m.m.endpointsFor(name, t.t)
}

// MergeEndpoints merges endpoints sharing name, type and set identifier, uniting their targets, as
// external-dns's MergeEndpoints does.
func MergeEndpoints(eps []*endpoint.Endpoint) []*endpoint.Endpoint { return mergeEndpoints(eps) }
