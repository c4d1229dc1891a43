package istio

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// boundGateway is one Gateway a VirtualService names in spec.gateways, with its targets.
type boundGateway struct {
	gw      *gatewayView
	targets source.Targets
}

// virtualService returns the records of one VirtualService: each of its hosts and hostname annotation
// names points at its target annotation, else at the targets of every Gateway of spec.gateways that
// binds that name. The template's names always take the Gateways' targets (external-dns's rule).
func (g *generation) virtualService(u *unstructured.Unstructured) []*endpoint.Endpoint {
	o := g.s.k.Object(endpoint.ObjectRef{Kind: vsKind, Namespace: u.GetNamespace(), Name: u.GetName()}, u.GetAnnotations(), g.problems)
	if !o.Admitted(u.GetLabels()) {
		return nil
	}
	o.ReportUnread(vsKind)
	vs := &virtualServiceView{}
	if !o.DecodeView(u, vs) {
		return nil
	}
	gateways := g.boundGateways(o, vs)
	annTargets, annotated := o.TargetAnnotation()
	targetsFor := func(host string) source.Targets {
		var t source.Targets
		for _, b := range gateways {
			if binds(vs, b.gw, host) {
				t.AddAll(b.targets)
			}
		}
		return t
	}
	meta := o.Meta("virtualservice/" + u.GetNamespace() + "/" + u.GetName())
	var eps []*endpoint.Endpoint
	add := func(name, host string, useAnnotation bool) {
		t := annTargets
		if !useAnnotation || !annotated {
			t = targetsFor(host)
		}
		eps = append(eps, meta.Endpoints(name, t)...)
	}
	for i, h := range vs.Spec.Hosts {
		if h == "" || h == "*" {
			continue
		}
		h = serverHost(h)
		if n := o.NormalizeHost(fmt.Sprintf("spec.hosts[%d]", i), h); n != "" {
			add(n, h, true)
		}
	}
	for _, n := range o.HostnameAnnotation() {
		add(n, n, true)
	}
	if set, combine := g.s.k.HasTemplate(); set && (combine || len(eps) == 0) {
		vs.SetGroupVersionKind(VirtualServiceResource.GroupVersion().WithKind(vsKind))
		for _, n := range o.TemplateHostnames(vs) {
			add(n, n, false)
		}
	}
	return eps
}

// boundGateways resolves spec.gateways ("name" in the VirtualService's namespace, or "namespace/name";
// "mesh" is the sidecars, not a Gateway). A reference that is malformed or names no Gateway that is
// read is a Problem; external-dns fails its whole run on a malformed one.
func (g *generation) boundGateways(o *source.Object, vs *virtualServiceView) []boundGateway {
	var out []boundGateway
	for i, ref := range vs.Spec.Gateways {
		if ref == "" || ref == meshGateway {
			continue
		}
		field := fmt.Sprintf("spec.gateways[%d]", i)
		ns, name := vs.Namespace, ref
		switch parts := strings.Split(ref, "/"); len(parts) {
		case 1:
		case 2:
			if parts[0] != "" {
				ns = parts[0]
			}
			name = parts[1]
		default:
			o.Problem(field, ref, "not a Gateway name or namespace/name")
			continue
		}
		b, ok := g.gatewayByKey(ns + "/" + name)
		if !ok {
			o.Problem(field, ref, "no Gateway "+ns+"/"+name+" is read (missing, or outside --namespace)")
			continue
		}
		out = append(out, b)
	}
	return out
}

// gatewayByKey reads a Gateway and its targets once per generation; its Problems are its own.
func (g *generation) gatewayByKey(key string) (boundGateway, bool) {
	if b, ok := g.gwCache[key]; ok {
		return b, b.gw != nil
	}
	if g.gwCache == nil {
		g.gwCache = map[string]boundGateway{}
	}
	var b boundGateway
	obj, found, err := g.s.gateways.GetByKey(key)
	if u, isU := obj.(*unstructured.Unstructured); err == nil && found && isU {
		o := g.s.k.Object(endpoint.ObjectRef{Kind: gatewayKind, Namespace: u.GetNamespace(), Name: u.GetName()}, u.GetAnnotations(), g.problems)
		gw := &gatewayView{}
		if o.DecodeView(u, gw) {
			b = boundGateway{gw: gw, targets: g.gatewayTargets(o, gw)}
		}
	}
	g.gwCache[key] = b
	return b, b.gw != nil
}

// binds reports whether gw serves host for vs: vs is exported to gw's namespace (spec.exportTo), and
// one of gw's server hosts, in a namespace that admits vs ("*", vs's own, or "." when both share one),
// is "*", host itself, or a "*.suffix" wildcard host ends with.
func binds(vs *virtualServiceView, gw *gatewayView, host string) bool {
	exported := len(vs.Spec.ExportTo) == 0
	for _, ns := range vs.Spec.ExportTo {
		if ns == "*" || ns == gw.Namespace || (ns == "." && gw.Namespace == vs.Namespace) {
			exported = true
		}
	}
	if !exported {
		return false
	}
	for _, srv := range gw.Spec.Servers {
		for _, h := range srv.Hosts {
			ns := "*"
			switch parts := strings.Split(h, "/"); len(parts) {
			case 1:
			case 2:
				ns, h = parts[0], parts[1]
			default:
				continue
			}
			if ns != "*" && ns != vs.Namespace && (ns != "." || vs.Namespace != gw.Namespace) {
				continue
			}
			if h == "*" || h == host || (strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:])) {
				return true
			}
		}
	}
	return false
}
