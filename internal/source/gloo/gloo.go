// Package gloo is the gloo-proxy source: Gloo Edge Proxies (gloo.solo.io/v1), with the VirtualServices
// (gateway.solo.io/v1) their virtual hosts came from, read through the dynamic client into small views.
//
// The semantics are external-dns's: every domain of every virtual host of a Proxy in a
// --gloo-namespace namespace is a name; the record metadata (ttl, set-identifier, provider-specific)
// comes from the annotations of the host's VirtualServices; the targets are the Proxy's target
// annotation, else the load balancer of the Ingress that its Gateways' ingress annotation names, else
// the load balancer of the Service named like the Proxy in its namespace.
package gloo

import (
	"context"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Source publishes Proxies.
type Source struct {
	k *source.Kernel
	// namespaces are --gloo-namespace: only Proxies there are published.
	namespaces map[string]bool
	st         stores
	handlers   source.Handlers
	// static: the objects come from manifests; no Events.
	static bool
	// merged lets a Proxy's events make the endpoints of that Proxy (ObjectEndpoints).
	merged source.MergedObjects
}

// stores are the caches the source reads, in every namespace.
type stores struct {
	proxies, vservices, gateways, services, ingresses cache.Indexer
}

var (
	_ source.ObjectSource = (*Source)(nil)
	_ source.ObjectLookup = (*Source)(nil)
)

func newKernel(cfg source.Config) (*source.Kernel, map[string]bool, error) {
	k, err := source.NewKernel(cfg)
	if err != nil {
		return nil, nil, err
	}
	nss := cfg.GlooNamespaces
	if len(nss) == 0 {
		nss = []string{DefaultNamespace}
	}
	set := map[string]bool{}
	for _, ns := range nss {
		set[ns] = true
	}
	return k, set, nil
}

// DefaultNamespace is --gloo-namespace's default, Gloo's install namespace.
const DefaultNamespace = "gloo-system"

// newSource starts the informers (all namespaces) and waits for their caches.
func newSource(ctx context.Context, env source.Env) (source.Source, error) {
	k, nss, err := newKernel(env.Config)
	if err != nil {
		return nil, err
	}
	if env.Kube == nil || env.Dynamic == nil {
		return nil, fmt.Errorf("gloo-proxy needs the Kubernetes API")
	}
	s := &Source{k: k, namespaces: nss}
	kf := kube.NewFactory(env.Kube, "", source.TrimObject)
	svcInf := kf.Services()
	ingInf := kf.Ingresses()
	dyn := kube.NewDynamicFactory(env.Dynamic, "")
	proxyInf := dyn.ForResource(ProxyResource)
	vsInf := dyn.ForResource(VirtualServiceResource)
	gwInf := dyn.ForResource(GatewayResource)
	for _, inf := range []cache.SharedIndexInformer{proxyInf, vsInf, gwInf} {
		if err := inf.SetTransform(source.TrimObject); err != nil {
			return nil, err
		}
	}
	proxyIndexers, gwIndexers := s.indexers()
	if err := proxyInf.AddIndexers(proxyIndexers); err != nil {
		return nil, err
	}
	if err := gwInf.AddIndexers(gwIndexers); err != nil {
		return nil, err
	}
	s.st = stores{proxies: proxyInf.GetIndexer(), vservices: vsInf.GetIndexer(), gateways: gwInf.GetIndexer(),
		services: svcInf.GetIndexer(), ingresses: ingInf.GetIndexer()}
	crd := func(gvr schema.GroupVersionResource) string {
		return source.Resource{Group: gvr.Group, Resource: gvr.Resource}.String()
	}
	watched := map[string]cache.SharedIndexInformer{
		crd(ProxyResource): proxyInf, crd(VirtualServiceResource): vsInf, crd(GatewayResource): gwInf,
		"services": svcInf, "ingresses.networking.k8s.io": ingInf,
	}
	// A Proxy's events name it; a VirtualService's, Gateway's, Ingress's or Service's name the Proxies
	// that read it (events.go). Every store is set before an informer starts: the handlers read them.
	s.handlers.NameObjects(crd(ProxyResource), label)
	s.handlers.DependentsOf(crd(VirtualServiceResource), s.virtualServiceDependents)
	s.handlers.DependentsOf(crd(GatewayResource), s.gatewayDependents)
	s.handlers.DependentsOf("ingresses.networking.k8s.io", s.ingressDependents)
	s.handlers.DependentsOf("services", s.serviceDependents)
	if err := source.StartAndSync(ctx, watched, &s.handlers, kf.Start, dyn.Start); err != nil {
		return nil, err
	}
	return s, nil
}

// AddEventHandler registers fn for every change of a watched object.
func (s *Source) AddEventHandler(fn func()) { s.handlers.Add(fn) }

// LookupObject finds a Proxy (kind "Proxy" or the resource label kind "proxy") or a VirtualService,
// for Events.
func (s *Source) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	switch {
	case s.static:
		return nil, false
	case source.KindMatches(kind, proxyKind, label):
		return source.LookupDynamic(namespace, name, []schema.GroupVersionKind{ProxyResource.GroupVersion().WithKind(proxyKind)}, []cache.Indexer{s.st.proxies})
	case source.KindMatches(kind, vsKind):
		return source.LookupDynamic(namespace, name, []schema.GroupVersionKind{VirtualServiceResource.GroupVersion().WithKind(vsKind)}, []cache.Indexer{s.st.vservices})
	}
	return nil, false
}

const vsKind = "VirtualService"

// Endpoints returns the records of every admitted Proxy in the --gloo-namespace namespaces, in
// namespace/name order, merged as external-dns merges them.
func (s *Source) Endpoints(ctx context.Context) (source.Result, error) {
	var problems source.Problems
	var eps []*endpoint.Endpoint
	for _, u := range source.SortedObjects(s.st.proxies) {
		if err := ctx.Err(); err != nil {
			return source.Result{}, err
		}
		if s.namespaces[u.GetNamespace()] {
			eps = append(eps, s.proxyEndpoints(u, &problems)...)
		}
	}
	s.merged.Remember(eps)
	return source.Result{Endpoints: source.MergeEndpoints(eps), Problems: problems.Items()}, nil
}

// ObjectKinds implements source.ObjectSource: a Proxy's endpoints depend on it, on the Proxies they
// are merged with (ObjectEndpoints makes those too), and on the objects it reads, whose events name
// it (events.go).
func (s *Source) ObjectKinds() []string {
	if s.static {
		return nil
	}
	return []string{label}
}

// AddObjectHandler implements source.ObjectSource.
func (s *Source) AddObjectHandler(fn func(resource string)) { s.handlers.AddObject(fn) }

// ObjectEndpoints implements source.ObjectSource: the named Proxies and every Proxy sharing a name
// with them, made and merged as Endpoints makes and merges them.
func (s *Source) ObjectEndpoints(ctx context.Context, resources []string) (source.Result, error) {
	return s.merged.EndpointsOf(ctx, resources, func(resource string, problems *source.Problems) ([]*endpoint.Endpoint, bool, error) {
		u, found, err := source.CachedUnstructured(s.st.proxies, resource, label)
		if err != nil || !found {
			return nil, false, err
		}
		if !s.namespaces[u.GetNamespace()] {
			return nil, true, nil
		}
		return s.proxyEndpoints(u, problems), true, nil
	})
}

func (s *Source) proxyEndpoints(u *unstructured.Unstructured, problems *source.Problems) []*endpoint.Endpoint {
	o := s.k.Object(endpoint.ObjectRef{Kind: proxyKind, Namespace: u.GetNamespace(), Name: u.GetName()}, u.GetAnnotations(), problems)
	if !o.Admitted(u.GetLabels()) {
		return nil
	}
	o.ReportUnread(proxyKind)
	p := &proxyView{}
	if !o.DecodeView(u, p) {
		return nil
	}
	targets, ok := s.targets(o, p)
	if !ok {
		return nil
	}
	resource := label + "/" + u.GetNamespace() + "/" + u.GetName()
	var eps []*endpoint.Endpoint
	for li, l := range p.Spec.Listeners {
		if targets.Empty() {
			break // no records from the virtual hosts; the templates below may still make some
		}
		for vi, vh := range l.virtualHosts() {
			meta, ok := s.hostMeta(o, vh, resource, problems)
			if !ok {
				continue
			}
			for di, d := range vh.Domains {
				if d == "*" { // Envoy's catch-all host, not a name
					continue
				}
				field := fmt.Sprintf("spec.listeners[%d] virtual host %d domains[%d]", li, vi, di)
				if n := o.NormalizeHost(field, strings.TrimSuffix(d, ".")); n != "" {
					eps = append(eps, meta.Endpoints(n, targets)...)
				}
			}
		}
	}
	// --fqdn-target-template and --fqdn-template with --target-template, as external-dns v0.23 applies
	// them to a Proxy (v0.21 does not): the Proxy's own annotations give the records' metadata.
	p.SetGroupVersionKind(ProxyResource.GroupVersion().WithKind(proxyKind))
	return o.ApplyTargetTemplates(o.Meta(resource), eps, p)
}

// hostMeta returns the record metadata of a virtual host: from the annotations of the VirtualServices
// it came from (later ones win, as external-dns merges them). A VirtualService that is not found is a
// Problem on the Proxy, and the host has no records.
func (s *Source) hostMeta(o *source.Object, vh virtualHostView, resource string, problems *source.Problems) (source.RecordMeta, bool) {
	ann := map[string]string{}
	var from *unstructured.Unstructured
	add := func(kind, ns, name string) bool {
		if kind != sourceVirtualService {
			return true
		}
		vs, found := getUnstructured(s.st.vservices, ns, name)
		if !found {
			o.Problem("spec.listeners virtual host metadata", ns+"/"+name, "VirtualService not found")
			return false
		}
		maps.Copy(ann, vs.GetAnnotations())
		from = vs
		return true
	}
	for _, src := range vh.Metadata.Sources {
		if !add(src.Kind, src.Namespace, src.Name) {
			return source.RecordMeta{}, false
		}
	}
	for _, src := range vh.MetadataStatic.Sources {
		if !add(src.ResourceKind, src.ResourceRef.Namespace, src.ResourceRef.Name) {
			return source.RecordMeta{}, false
		}
	}
	ref := o.Ref()
	if from != nil {
		ref = endpoint.ObjectRef{Kind: vsKind, Namespace: from.GetNamespace(), Name: from.GetName()}
	}
	meta := s.k.Object(ref, ann, problems)
	meta.ReportUnread(ref.Kind)
	return meta.Meta(resource), true
}

// targets returns a Proxy's targets: its target annotation, else the load balancer of the Ingress its
// Gateways name, else the load balancer of its Service. ok is false when a reference is broken (the
// Problem is recorded).
func (s *Source) targets(o *source.Object, p *proxyView) (source.Targets, bool) {
	if t, present := o.TargetAnnotation(); present {
		return t, true
	}
	var t source.Targets
	for li, l := range p.Spec.Listeners {
		for _, src := range l.MetadataStatic.Sources {
			if src.ResourceKind != sourceGateway {
				continue
			}
			ns, name := src.ResourceRef.Namespace, src.ResourceRef.Name
			gw, found := getUnstructured(s.st.gateways, ns, name)
			if !found {
				o.Problem(fmt.Sprintf("spec.listeners[%d].metadataStatic", li), ns+"/"+name, "Gateway not found")
				return source.Targets{}, false
			}
			key, ref := s.k.PrefixedAnnotation(gw.GetAnnotations(), keyIngress)
			if ref == "" {
				continue
			}
			ing, err := s.ingress(gw.GetNamespace(), ref)
			if err != nil {
				o.Problem("Gateway "+gw.GetNamespace()+"/"+gw.GetName()+" metadata.annotations["+key+"]", ref, err.Error())
				return source.Targets{}, false
			}
			field := "Ingress " + ing.Namespace + "/" + ing.Name + " status.loadBalancer.ingress"
			for i, in := range ing.Status.LoadBalancer.Ingress {
				switch {
				case in.IP != "":
					t.Add(o, fmt.Sprintf("%s[%d].ip", field, i), in.IP)
				case in.Hostname != "":
					t.Add(o, fmt.Sprintf("%s[%d].hostname", field, i), in.Hostname)
				}
			}
		}
	}
	if !t.Empty() {
		return t, true
	}
	return s.serviceTargets(o, p.Namespace, p.Name)
}

// serviceTargets returns the load balancer addresses of the Service named like the Proxy; a Service of
// another type gives none.
func (s *Source) serviceTargets(o *source.Object, namespace, name string) (source.Targets, bool) {
	obj, found, _ := s.st.services.GetByKey(namespace + "/" + name)
	svc, isSvc := obj.(*corev1.Service)
	if !found || !isSvc {
		o.Problem("metadata.name", name, "no Service "+namespace+"/"+name+" for the Proxy's targets (or set the target annotation)")
		return source.Targets{}, false
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return source.Targets{}, true
	}
	return source.LoadBalancerTargets(o, svc.Status.LoadBalancer, "Service "+namespace+"/"+name+" status.loadBalancer"), true
}

// keyIngress is external-dns's ingress annotation (without prefix), on a Gloo Gateway: "namespace/name"
// or "name" (in the Gateway's namespace) of an Ingress whose load balancer serves the Proxy.
const keyIngress = "ingress"

func (s *Source) ingress(gatewayNamespace, ref string) (*networkingv1.Ingress, error) {
	ns, name, ok := ingressKey(gatewayNamespace, ref)
	if !ok {
		return nil, fmt.Errorf("not namespace/name or name")
	}
	obj, found, _ := s.st.ingresses.GetByKey(ns + "/" + name)
	ing, isIngress := obj.(*networkingv1.Ingress)
	if !found || !isIngress {
		return nil, fmt.Errorf("Ingress %s/%s not found", ns, name)
	}
	return ing, nil
}

func getUnstructured(idx cache.Indexer, namespace, name string) (*unstructured.Unstructured, bool) {
	obj, found, _ := idx.GetByKey(namespace + "/" + name)
	u, ok := obj.(*unstructured.Unstructured)
	return u, found && ok
}
