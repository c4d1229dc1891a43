// Package istio is the istio-gateway and istio-virtualservice sources: Istio Gateways and
// VirtualServices (networking.istio.io/v1), read through the dynamic client into small views, and the
// Services their Gateways select.
//
// The semantics are external-dns v0.21.0's: a Gateway's names are its spec.servers[].hosts (the
// "namespace/" part dropped, "*" skipped) and the hostname annotation; a VirtualService's names are its
// spec.hosts and the hostname annotation, each pointed at the Gateways in spec.gateways that bind it.
// A Gateway's targets are its target annotation, else the external IPs or load balancer addresses of
// every Service whose selector the Gateway's spec.selector matches.
package istio

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

const group = "networking.istio.io"

// The resources the sources read.
var (
	GatewayResource        = schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gateways"}
	VirtualServiceResource = schema.GroupVersionResource{Group: group, Version: "v1", Resource: "virtualservices"}
)

const (
	gatewayKind = "Gateway"
	vsKind      = "VirtualService"
	// meshGateway in spec.gateways means the sidecars, not a Gateway object.
	meshGateway = "mesh"
	// keyIngress is external-dns's annotation naming an Ingress whose status gives a Gateway's targets;
	// zonekeeper does not read Ingresses for these sources (see README.md).
	keyIngress = "ingress"
)

// gatewayView is what is read of a Gateway, with the names of Istio's Go type, so that --fqdn-template
// reads {{.Spec.Servers}} or {{.Spec.Selector}} as it would on it.
type gatewayView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Servers []struct {
			Name  string   `json:"name,omitempty"`
			Bind  string   `json:"bind,omitempty"`
			Hosts []string `json:"hosts,omitempty"`
		} `json:"servers,omitempty"`
		Selector map[string]string `json:"selector,omitempty"`
	} `json:"spec"`
}

// virtualServiceView is what is read of a VirtualService.
type virtualServiceView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Hosts    []string `json:"hosts,omitempty"`
		Gateways []string `json:"gateways,omitempty"`
		ExportTo []string `json:"exportTo,omitempty"`
	} `json:"spec"`
}

// Source publishes Istio Gateways (vs false) or VirtualServices (vs true).
type Source struct {
	k        *source.Kernel
	vs       bool
	services cache.Indexer
	gateways cache.Indexer
	// vservices is nil for istio-gateway.
	vservices cache.Indexer
	handlers  source.Handlers
	// static: the objects come from manifests, not the API server; no Events are sent for them.
	static bool
	// merged lets an object's events make the endpoints of that object (ObjectEndpoints).
	merged source.MergedObjects
	// indexed is set once gateways and vservices are: the informers' event handlers read them.
	indexed atomic.Bool
}

var (
	_ source.ObjectSource = (*Source)(nil)
	_ source.ObjectLookup = (*Source)(nil)
)

// newSource starts the informers (Services and Gateways, and VirtualServices when vs, all in
// --namespace) and waits for their caches.
func newSource(ctx context.Context, env source.Env, vs bool) (*Source, error) {
	k, err := source.NewKernel(env.Config)
	if err != nil {
		return nil, err
	}
	if env.Kube == nil || env.Dynamic == nil {
		return nil, fmt.Errorf("the Istio sources need the Kubernetes API")
	}
	s := &Source{k: k, vs: vs}
	kf := kube.NewFactory(env.Kube, env.Config.Namespace, source.TrimObject)
	svcInf := kf.Services()
	s.services = svcInf.GetIndexer()
	// A Service's events name the Gateways that read it, a Gateway's the VirtualServices bound to it
	// (events.go); the objects published name themselves.
	s.handlers.DependentsOf("services", s.serviceDependents)
	if vs {
		s.handlers.DependentsOf(source.Resource{Group: GatewayResource.Group, Resource: GatewayResource.Resource}.String(), s.gatewayDependents)
	}
	if err := source.StartAndSync(ctx, map[string]cache.SharedIndexInformer{"services": svcInf}, &s.handlers, kf.Start); err != nil {
		return nil, err
	}
	gvrs := []schema.GroupVersionResource{GatewayResource}
	if vs {
		gvrs = append(gvrs, VirtualServiceResource)
	}
	published := gvrs[len(gvrs)-1]
	s.handlers.NameObjects(source.Resource{Group: published.Group, Resource: published.Resource}.String(), s.label())
	idx, err := source.WatchDynamic(ctx, env.Dynamic, env.Config.Namespace, &s.handlers, gvrs...)
	if err != nil {
		return nil, err
	}
	s.gateways = idx[0]
	if vs {
		s.vservices = idx[1]
	}
	s.indexed.Store(true)
	return s, nil
}

// AddEventHandler registers fn for every change of a watched object.
func (s *Source) AddEventHandler(fn func()) { s.handlers.Add(fn) }

// LookupObject finds a Gateway (kind "Gateway" or the resource label kind "gateway") or, for
// istio-virtualservice, a VirtualService, for Events.
func (s *Source) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	switch {
	case s.static:
		return nil, false
	case source.KindMatches(kind, gatewayKind):
		return source.LookupDynamic(namespace, name, []schema.GroupVersionKind{GatewayResource.GroupVersion().WithKind(gatewayKind)}, []cache.Indexer{s.gateways})
	case s.vs && source.KindMatches(kind, vsKind):
		return source.LookupDynamic(namespace, name, []schema.GroupVersionKind{VirtualServiceResource.GroupVersion().WithKind(vsKind)}, []cache.Indexer{s.vservices})
	}
	return nil, false
}

// Endpoints returns the records of every admitted Gateway or VirtualService, in namespace/name order,
// merged as external-dns merges them.
func (s *Source) Endpoints(ctx context.Context) (source.Result, error) {
	var problems source.Problems
	var eps []*endpoint.Endpoint
	idx := s.gateways
	if s.vs {
		idx = s.vservices
	}
	g := &generation{s: s, problems: &problems, services: s.sortedServices()}
	for _, u := range source.SortedObjects(idx) {
		if err := ctx.Err(); err != nil {
			return source.Result{}, err
		}
		if s.vs {
			eps = append(eps, g.virtualService(u)...)
		} else {
			eps = append(eps, g.gateway(u)...)
		}
	}
	s.merged.Remember(eps)
	return source.Result{Endpoints: source.MergeEndpoints(eps), Problems: problems.Items()}, nil
}

// label is the resource-label kind of the objects the source publishes.
func (s *Source) label() string {
	if s.vs {
		return "virtualservice"
	}
	return "gateway"
}

// ObjectKinds implements source.ObjectSource: a Gateway's or VirtualService's endpoints depend on it,
// on the objects of its kind they are merged with (ObjectEndpoints makes those too), and on Services
// and Gateways, whose events name the objects that read them (events.go).
func (s *Source) ObjectKinds() []string {
	if s.static {
		return nil
	}
	return []string{s.label()}
}

// AddObjectHandler implements source.ObjectSource.
func (s *Source) AddObjectHandler(fn func(resource string)) { s.handlers.AddObject(fn) }

// ObjectEndpoints implements source.ObjectSource: the named objects and every object of the kind
// sharing a name with them, made and merged as Endpoints makes and merges them, with one view of the
// Services (and Gateways) for the whole answer.
func (s *Source) ObjectEndpoints(ctx context.Context, resources []string) (source.Result, error) {
	idx := s.gateways
	if s.vs {
		idx = s.vservices
	}
	var g *generation
	return s.merged.EndpointsOf(ctx, resources, func(resource string, problems *source.Problems) ([]*endpoint.Endpoint, bool, error) {
		u, found, err := source.CachedUnstructured(idx, resource, s.label())
		if err != nil || !found {
			return nil, false, err
		}
		if g == nil {
			g = &generation{s: s, problems: problems, services: s.sortedServices()}
		}
		if s.vs {
			return g.virtualService(u), true, nil
		}
		return g.gateway(u), true, nil
	})
}

// generation is one Endpoints pass.
type generation struct {
	s        *Source
	problems *source.Problems
	services []*corev1.Service
	// gwCache holds the Gateways a VirtualService pass has read, by namespace/name.
	gwCache map[string]boundGateway
}

func (s *Source) sortedServices() []*corev1.Service {
	var out []*corev1.Service
	for _, obj := range s.services.List() {
		if svc, ok := obj.(*corev1.Service); ok {
			out = append(out, svc)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// gateway returns the records of one Gateway: its server hosts and hostname annotation (or the
// template's names) pointing at its targets.
func (g *generation) gateway(u *unstructured.Unstructured) []*endpoint.Endpoint {
	o := g.s.k.Object(endpoint.ObjectRef{Kind: gatewayKind, Namespace: u.GetNamespace(), Name: u.GetName()}, u.GetAnnotations(), g.problems)
	if !o.Admitted(u.GetLabels()) {
		return nil
	}
	o.ReportUnread(gatewayKind)
	gw := &gatewayView{}
	if !o.DecodeView(u, gw) {
		return nil
	}
	targets := g.gatewayTargets(o, gw)
	var names []string
	for i, srv := range gw.Spec.Servers {
		for j, h := range srv.Hosts {
			if h = serverHost(h); h == "" || h == "*" {
				continue
			}
			if n := o.NormalizeHost(fmt.Sprintf("spec.servers[%d].hosts[%d]", i, j), h); n != "" {
				names = append(names, n)
			}
		}
	}
	names = append(names, o.HostnameAnnotation()...)
	if targets.Empty() {
		return nil // the template's names would have no targets either
	}
	meta := o.Meta("gateway/" + u.GetNamespace() + "/" + u.GetName())
	var eps []*endpoint.Endpoint
	for _, n := range names {
		eps = append(eps, meta.Endpoints(n, targets)...)
	}
	if set, combine := g.s.k.HasTemplate(); set && (combine || len(eps) == 0) {
		gw.SetGroupVersionKind(GatewayResource.GroupVersion().WithKind(gatewayKind))
		for _, n := range o.TemplateHostnames(gw) {
			eps = append(eps, meta.Endpoints(n, targets)...)
		}
	}
	return eps
}

// serverHost drops the "namespace/" part of a Gateway server host; a host with more than one "/" is
// kept whole (and then fails as a DNS name), as external-dns keeps it.
func serverHost(h string) string {
	if parts := strings.Split(h, "/"); len(parts) == 2 {
		return parts[1]
	}
	return h
}

// gatewayTargets returns a Gateway's targets: its target annotation, else the addresses of the
// Services its selector matches (all of them when it has no selector, as in external-dns). Problems are
// recorded on the Gateway o.
func (g *generation) gatewayTargets(o *source.Object, gw *gatewayView) source.Targets {
	if t, present := o.TargetAnnotation(); present {
		return t
	}
	if key, v := g.s.k.PrefixedAnnotation(gw.Annotations, keyIngress); v != "" {
		o.Problem("metadata.annotations["+key+"]", v, "zonekeeper does not read Ingresses for Istio Gateways: set the target annotation to the Ingress's load balancer address instead")
		return source.Targets{}
	}
	sel := labels.SelectorFromSet(gw.Spec.Selector)
	var t source.Targets
	for _, svc := range g.services {
		if !sel.Matches(labels.Set(svc.Spec.Selector)) {
			continue
		}
		prefix := "service " + svc.Namespace + "/" + svc.Name + " "
		if len(svc.Spec.ExternalIPs) > 0 {
			for i, ip := range svc.Spec.ExternalIPs {
				t.Add(o, fmt.Sprintf("%sspec.externalIPs[%d]", prefix, i), ip)
			}
			continue
		}
		for i, in := range svc.Status.LoadBalancer.Ingress {
			switch {
			case in.IP != "":
				t.Add(o, fmt.Sprintf("%sstatus.loadBalancer.ingress[%d].ip", prefix, i), in.IP)
			case in.Hostname != "":
				t.Add(o, fmt.Sprintf("%sstatus.loadBalancer.ingress[%d].hostname", prefix, i), in.Hostname)
			}
		}
	}
	return t
}
