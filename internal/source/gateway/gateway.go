// Package gateway is the Gateway API sources: gateway-httproute, gateway-grpcroute, gateway-tlsroute,
// gateway-tcproute and gateway-udproute. One engine (this file and hosts.go) does the work for every
// route kind; each kind is a small adapter (httproute.go, ...) that says how to read its routes.
//
// The semantics are external-dns v0.21.0's: a route's hostnames (spec.hostnames, the hostname
// annotation, --fqdn-template) are intersected with the hostnames of the listeners it attaches to,
// for every parent Gateway whose status.parents entry has Accepted=True; the records point at the
// Gateway's status.addresses, or at its target annotation.
package gateway

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

const (
	group       = "gateway.networking.k8s.io"
	gatewayKind = "Gateway"
)

// route is what the engine reads of one route object, whatever its kind.
type route struct {
	// raw is the cached object.
	raw        any
	meta       *metav1.ObjectMeta
	hostnames  []gwv1.Hostname
	parentRefs []gwv1.ParentReference
	parents    []gwv1.RouteParentStatus
}

// adapter is one route kind.
type adapter struct {
	// kind is the API kind ("HTTPRoute"); its lower case is the resource label kind and the --source
	// suffix.
	kind, version, resource string
	// protocol is the listener protocol the kind attaches to (HTTPS counts as HTTP, and a TCP route
	// also attaches to TLS listeners).
	protocol gwv1.ProtocolType
	informer func(*gwFactory) cache.SharedIndexInformer
	// view reads one cached object; ok is false for an object of another type.
	view func(obj any) (r route, ok bool)
	// typed returns a copy of a cached route with its TypeMeta set, for --fqdn-template.
	typed func(obj any) runtime.Object
	// decode makes the typed route of an object read from a manifest (any served version: their
	// schemas are the same).
	decode func(content map[string]any) (runtime.Object, error)
	lower  string
}

func (a adapter) label() string { return a.lower }

// Source publishes the routes of one kind.
type Source struct {
	k        *source.Kernel
	a        adapter
	gwName   string
	gwLabels labels.Selector // nil: every Gateway
	routes   cache.Indexer
	gateways cache.Indexer
	nss      cache.Indexer
	// listenerSets holds unstructured ListenerSets; nil without --gateway-listener-sets.
	listenerSets cache.Indexer
	handlers     source.Handlers
	// live: the objects come from the API server, so Events can be sent for them.
	live bool
	// merged lets a route's events make the endpoints of that route (ObjectEndpoints).
	merged source.MergedObjects
}

var (
	_ source.ObjectSource = (*Source)(nil)
	_ source.ObjectLookup = (*Source)(nil)
)

// newSource starts the informers (Gateways in --gateway-namespace, routes in --namespace, and
// Namespaces, for allowedRoutes selectors) and waits for their caches.
func newSource(ctx context.Context, env source.Env, a adapter) (*Source, error) {
	cfg := env.Config
	s, err := newBare(cfg, a)
	if err != nil {
		return nil, err
	}
	s.live = true
	if env.REST == nil {
		return nil, fmt.Errorf("--source=gateway-%s needs the Kubernetes API", a.label())
	}
	clients, err := newGatewayClients(env.REST)
	if err != nil {
		return nil, fmt.Errorf("gateway API client: %w", err)
	}
	gwFactory := newGWFactory(clients, cfg.GatewayNamespace)
	rtFactory := gwFactory
	if cfg.Namespace != cfg.GatewayNamespace {
		rtFactory = newGWFactory(clients, cfg.Namespace)
	}
	kubeFactory := kube.NewFactory(env.Kube, "", source.TrimObject)

	gwInf := gwFactory.inf(false, "gateways", &gwv1.Gateway{})
	rtInf := a.informer(rtFactory)
	nsInf := kubeFactory.Namespaces()
	s.gateways, s.routes, s.nss = gwInf.GetIndexer(), rtInf.GetIndexer(), nsInf.GetIndexer()
	watched := map[string]cache.SharedIndexInformer{
		"gateways." + group:      gwInf,
		a.resource + "." + group: rtInf,
		"namespaces":             nsInf,
	}
	// A route's events name it; a Gateway's, a ListenerSet's or a Namespace's name the routes that
	// read it (events.go).
	s.handlers.NameObjects(a.resource+"."+group, a.label())
	if err := rtInf.AddIndexers(cache.Indexers{routesByParent: s.routeParents}); err != nil {
		return nil, err
	}
	s.handlers.DependentsOf("gateways."+group, s.gatewayDependents)
	s.handlers.DependentsOf("namespaces", s.namespaceDependents)
	starters := []source.Starter{gwFactory.Start, kubeFactory.Start}
	if rtFactory != gwFactory {
		starters = append(starters, rtFactory.Start)
	}
	if cfg.GatewayListenerSets {
		// In every namespace, whatever --gateway-namespace says: it selects Gateways, not ListenerSets.
		f := kube.NewDynamicFactory(env.Dynamic, "")
		inf := f.ForResource(listenerSetResource)
		if err := inf.SetTransform(source.TrimObject); err != nil {
			return nil, err
		}
		if err := inf.AddIndexers(cache.Indexers{listenerSetsByGateway: listenerSetParent}); err != nil {
			return nil, err
		}
		s.listenerSets = inf.GetIndexer()
		watched[listenerSetResource.Resource+"."+group] = inf
		s.handlers.DependentsOf(listenerSetResource.Resource+"."+group, s.listenerSetDependents)
		starters = append(starters, f.Start)
	}
	if err := source.StartAndSync(ctx, watched, &s.handlers, starters...); err != nil {
		return nil, err
	}
	return s, nil
}

// newBare checks the configuration; the caches are left for the caller to set.
func newBare(cfg source.Config, a adapter) (*Source, error) {
	k, err := source.NewKernel(cfg)
	if err != nil {
		return nil, err
	}
	s := &Source{k: k, a: a, gwName: cfg.GatewayName}
	if f := strings.TrimSpace(cfg.GatewayLabelFilter); f != "" {
		if s.gwLabels, err = labels.Parse(f); err != nil {
			return nil, fmt.Errorf("--gateway-label-filter %q: %w", cfg.GatewayLabelFilter, err)
		}
	}
	return s, nil
}

// NewStatic builds the source of one route kind ("gateway-httproute", ...) over objects that are
// already decoded, for manifests on disk (zonekeeper plan): Gateways, routes of that kind and
// Namespaces; other objects are left out, as are objects outside --namespace (routes) and
// --gateway-namespace (Gateways). It serves no events.
func NewStatic(kindName string, cfg source.Config, objs []runtime.Object) (*Source, error) {
	var a adapter
	for _, c := range []adapter{httpRoute, grpcRoute, tlsRoute, tcpRoute, udpRoute} {
		if "gateway-"+c.lower == kindName {
			a = c
		}
	}
	if a.kind == "" {
		return nil, fmt.Errorf("%s is not a Gateway API source", kindName)
	}
	s, err := newBare(cfg, a)
	if err != nil {
		return nil, err
	}
	newIndexer := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	s.routes, s.gateways, s.nss = newIndexer(), newIndexer(), newIndexer()
	for _, obj := range objs {
		var into cache.Indexer
		switch o := obj.(type) {
		case *corev1.Namespace:
			into = s.nss
		case *gwv1.Gateway:
			if cfg.GatewayNamespace == "" || o.Namespace == cfg.GatewayNamespace {
				into = s.gateways
			}
		default:
			if m, ok := obj.(metav1.Object); ok {
				if _, isRoute := a.view(obj); isRoute && (cfg.Namespace == "" || m.GetNamespace() == cfg.Namespace) {
					into = s.routes
				}
			}
		}
		if into != nil {
			if err := into.Add(obj); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// AddEventHandler registers fn for every change of a route, a Gateway or a Namespace.
func (s *Source) AddEventHandler(fn func()) { s.handlers.Add(fn) }

// LookupObject finds a cached route, or a cached Gateway (its bad target annotation or address), for
// Events. The object comes with its apiVersion and kind set: objects from a watch have none, and the
// event recorder's scheme does not know the Gateway API types.
func (s *Source) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if !s.live {
		return nil, false
	}
	key := namespace + "/" + name
	switch {
	case strings.EqualFold(kind, s.a.kind) || strings.EqualFold(kind, s.a.label()):
		if obj, ok, err := s.routes.GetByKey(key); err == nil && ok {
			return s.a.typed(obj), true
		}
	case strings.EqualFold(kind, gatewayKind):
		if obj, ok, err := s.gateways.GetByKey(key); err == nil && ok {
			if gw, isGW := obj.(*gwv1.Gateway); isGW {
				c := *gw
				c.GetObjectKind().SetGroupVersionKind(gvk("v1", gatewayKind))
				return &c, true
			}
		}
	}
	return nil, false
}

// Endpoints returns the records of every admitted route, in namespace/name order, merged as
// external-dns merges them (across routes: one name, type and set identifier is one endpoint).
func (s *Source) Endpoints(ctx context.Context) (source.Result, error) {
	var problems source.Problems
	r := s.resolver(&problems)
	objs := s.routes.List()
	routes := make([]route, 0, len(objs))
	for _, obj := range objs {
		if rt, ok := s.a.view(obj); ok {
			routes = append(routes, rt)
		}
	}
	sort.Slice(routes, func(i, j int) bool {
		a, b := routes[i].meta, routes[j].meta
		return a.Namespace < b.Namespace || (a.Namespace == b.Namespace && a.Name < b.Name)
	})
	var eps []*endpoint.Endpoint
	for i := range routes {
		if err := ctx.Err(); err != nil {
			return source.Result{}, err
		}
		eps = append(eps, r.routeEndpoints(&routes[i])...)
	}
	s.merged.Remember(eps)
	return source.Result{Endpoints: source.MergeEndpoints(eps), Problems: problems.Items()}, nil
}

// ObjectKinds implements source.ObjectSource: a route's endpoints depend on it, on the routes of its
// kind it is merged with (ObjectEndpoints makes those too) and on Gateways, ListenerSets and
// Namespaces, whose events name the routes that read them (events.go).
func (s *Source) ObjectKinds() []string { return []string{s.a.label()} }

// AddObjectHandler implements source.ObjectSource.
func (s *Source) AddObjectHandler(fn func(resource string)) { s.handlers.AddObject(fn) }

// ObjectEndpoints implements source.ObjectSource: the named routes and every route of the kind
// sharing a name with them, made as Endpoints makes each route and merged as it merges them.
func (s *Source) ObjectEndpoints(ctx context.Context, resources []string) (source.Result, error) {
	var r *resolver // one view of the Gateways and Namespaces for the whole answer, as in Endpoints
	return s.merged.EndpointsOf(ctx, resources, func(resource string, problems *source.Problems) ([]*endpoint.Endpoint, bool, error) {
		obj, found, err := source.CachedObject(s.routes, resource, s.a.label())
		if err != nil || !found {
			return nil, false, err
		}
		rt, ok := s.a.view(obj)
		if !ok {
			return nil, false, fmt.Errorf("%s is a %T in the cache", resource, obj)
		}
		if r == nil {
			r = s.resolver(problems)
		}
		return r.routeEndpoints(&rt), true, nil
	})
}

// parent is one Gateway or ListenerSet a route may attach to, with what was read of it once per pass.
type parent struct {
	// gw is the Gateway (a ListenerSet's parent Gateway): --gateway-name applies to it.
	gw *gwv1.Gateway
	// owner is the namespace of the Gateway or ListenerSet, for allowedRoutes "Same".
	owner string
	// byName indexes the listeners by name; "" holds them all.
	byName  map[gwv1.SectionName][]*gwv1.Listener
	targets source.Targets
}

// resolver holds one pass's view of the Gateways and Namespaces.
type resolver struct {
	s        *Source
	problems *source.Problems
	// parents are the Gateways and ListenerSets read so far, by "Kind/namespace/name" (nil: not usable).
	parents  map[string]*parent
	selected map[string]bool // "namespace/name" of the Gateways the flags select
	nss      map[string]*corev1.Namespace
}

func (s *Source) resolver(problems *source.Problems) *resolver {
	r := &resolver{s: s, problems: problems, parents: map[string]*parent{}, selected: map[string]bool{}, nss: map[string]*corev1.Namespace{}}
	for _, obj := range s.nss.List() {
		if ns, ok := obj.(*corev1.Namespace); ok {
			r.nss[ns.Name] = ns
		}
	}
	for _, obj := range s.gateways.List() {
		gw, ok := obj.(*gwv1.Gateway)
		if !ok || (s.gwLabels != nil && !s.gwLabels.Matches(labels.Set(gw.Labels))) {
			continue
		}
		r.selected[gw.Namespace+"/"+gw.Name] = true // read on first use
	}
	return r
}

// gateway returns the parent Gateway namespace/name, reading its listeners and targets the first
// time; nil when it is not cached or not selected by --gateway-label-filter.
func (r *resolver) gateway(namespace, name string) *parent {
	key := namespace + "/" + name
	if !r.selected[key] {
		return nil
	}
	if p, done := r.parents[gatewayKind+"/"+key]; done {
		return p
	}
	obj, ok, err := r.s.gateways.GetByKey(key)
	if err != nil || !ok {
		return nil
	}
	gw := obj.(*gwv1.Gateway)
	p := &parent{gw: gw, owner: gw.Namespace, byName: make(map[gwv1.SectionName][]*gwv1.Listener, len(gw.Spec.Listeners)+1)}
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		p.byName[l.Name] = []*gwv1.Listener{l}
		p.byName[""] = append(p.byName[""], l)
	}
	o := r.s.k.Object(endpoint.ObjectRef{Kind: gatewayKind, Namespace: gw.Namespace, Name: gw.Name}, gw.Annotations, r.problems)
	if t, present := o.TargetAnnotation(); present {
		p.targets = t
	} else {
		for i, a := range gw.Status.Addresses {
			p.targets.Add(o, fmt.Sprintf("status.addresses[%d].value", i), a.Value)
		}
	}
	r.parents[gatewayKind+"/"+key] = p
	return p
}

// routeEndpoints turns one route into endpoints.
func (r *resolver) routeEndpoints(rt *route) []*endpoint.Endpoint {
	ref := endpoint.ObjectRef{Kind: r.s.a.kind, Namespace: rt.meta.Namespace, Name: rt.meta.Name}
	o := r.s.k.Object(ref, rt.meta.Annotations, r.problems)
	if !o.Admitted(rt.meta.Labels) {
		return nil
	}
	if v, field, present := o.Annotation(source.KeyTarget); present {
		o.Problem(field, v, "not read on routes: the records point at the parent Gateway's status.addresses, "+
			"or at the target annotation on the Gateway (as in external-dns)")
	}
	hosts := r.routeHosts(o, rt)
	if len(hosts) == 0 || len(rt.parentRefs) == 0 {
		return nil
	}
	// Targets per host, in the order hosts first match; a host matched through several listeners or
	// Gateways gets the union of their targets. Routes have few names: a slice beats a map.
	var matched []hostTargets
	var listenerHosts []string // of the listeners the route attached to, for the problem below
	for _, ps := range rt.parents {
		p, sectionListeners := r.acceptedParent(rt, ps)
		if p == nil {
			continue
		}
		for _, l := range sectionListeners {
			if !r.attaches(rt, ps.ParentRef, p, l) {
				continue
			}
			lh := ""
			if l.Hostname != nil {
				lh = string(*l.Hostname)
			}
			listenerHosts = append(listenerHosts, lh)
			for _, h := range hosts {
				if h == "" && lh == "" {
					continue
				}
				m, ok := matchHost(lh, h)
				if !ok {
					continue
				}
				i := 0
				for i < len(matched) && matched[i].host != m {
					i++
				}
				if i == len(matched) {
					matched = append(matched, hostTargets{host: m})
				}
				matched[i].targets.AddAll(p.targets)
			}
		}
	}
	r.reportUnmatched(o, hosts, listenerHosts)
	if len(matched) == 0 {
		return nil
	}
	o.ReportUnread(r.s.a.kind)
	meta := o.Meta(r.s.a.label() + "/" + rt.meta.Namespace + "/" + rt.meta.Name)
	var eps []*endpoint.Endpoint
	for _, m := range matched {
		eps = append(eps, meta.Endpoints(m.host, m.targets)...)
	}
	return eps
}

type hostTargets struct {
	host    string
	targets source.Targets
}

// acceptedParent returns the Gateway of one status.parents entry, and the listeners its sectionName
// selects, when the entry names a parentRef of the spec, the Gateway is selected (--gateway-name,
// --gateway-namespace, --gateway-label-filter) and it accepted the route.
func (r *resolver) acceptedParent(rt *route, ps gwv1.RouteParentStatus) (*parent, []*gwv1.Listener) {
	ref := ps.ParentRef
	if !specHasParentRef(rt, ref) {
		return nil, nil
	}
	if str((*string)(ref.Group), group) != group {
		return nil, nil
	}
	var p *parent
	ns := str((*string)(ref.Namespace), rt.meta.Namespace)
	switch str((*string)(ref.Kind), gatewayKind) {
	case gatewayKind:
		p = r.gateway(ns, string(ref.Name))
	case listenerSetKind:
		p = r.listenerSet(ns, string(ref.Name))
	}
	if p == nil || (r.s.gwName != "" && p.gw.Name != r.s.gwName) || !accepted(ps.Conditions) {
		return nil, nil
	}
	section := gwv1.SectionName("")
	if ref.SectionName != nil {
		section = *ref.SectionName
	}
	return p, p.byName[section]
}

// specHasParentRef reports whether a status entry's parentRef is one of spec.parentRefs (group,
// kind, namespace and name; the section and port are taken from the status entry).
func specHasParentRef(rt *route, ref gwv1.ParentReference) bool {
	ns := str((*string)(ref.Namespace), rt.meta.Namespace)
	g, k := str((*string)(ref.Group), group), str((*string)(ref.Kind), gatewayKind)
	for _, sr := range rt.parentRefs {
		if str((*string)(sr.Group), group) == g && str((*string)(sr.Kind), gatewayKind) == k &&
			sr.Name == ref.Name && str((*string)(sr.Namespace), rt.meta.Namespace) == ns {
			return true
		}
	}
	return false
}

// accepted reports whether the first Accepted condition is True.
func accepted(conds []metav1.Condition) bool {
	for _, c := range conds {
		if c.Type == string(gwv1.RouteConditionAccepted) {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// attaches reports whether the route may attach to listener l of Gateway p: protocol, the port of
// the parentRef, and the listener's allowedRoutes (namespaces and kinds).
func (r *resolver) attaches(rt *route, ref gwv1.ParentReference, p *parent, l *gwv1.Listener) bool {
	if !protocolMatches(r.s.a.protocol, l.Protocol) {
		return false
	}
	if ref.Port != nil && *ref.Port != l.Port {
		return false
	}
	allow := l.AllowedRoutes
	from, sel := gwv1.NamespacesFromSame, (*metav1.LabelSelector)(nil)
	if allow != nil && allow.Namespaces != nil && allow.Namespaces.From != nil {
		from, sel = *allow.Namespaces.From, allow.Namespaces.Selector
	}
	if !r.namespaceAdmits(from, sel, p.owner, rt.meta.Namespace) {
		return false
	}
	if allow == nil || len(allow.Kinds) == 0 {
		return true
	}
	for _, k := range allow.Kinds {
		if str((*string)(k.Group), group) == group && string(k.Kind) == r.s.a.kind {
			return true
		}
	}
	return false
}

// namespaceAdmits applies a Gateway's namespace rule (allowedRoutes, allowedListeners) to namespace
// ns: All, Same (as owner), or Selector over the namespace's labels; anything else admits nothing.
func (r *resolver) namespaceAdmits(from gwv1.FromNamespaces, sel *metav1.LabelSelector, owner, ns string) bool {
	switch from {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSame:
		return owner == ns
	case gwv1.NamespacesFromSelector:
		if sel == nil {
			return false
		}
		s, err := metav1.LabelSelectorAsSelector(sel)
		n, ok := r.nss[ns]
		return err == nil && ok && s.Matches(labels.Set(n.Labels))
	}
	return false
}

// protocolMatches compares a route's protocol with a listener's: HTTPS counts as HTTP, and a TLS
// listener takes TCP routes.
func protocolMatches(rtProto, lisProto gwv1.ProtocolType) bool {
	norm := func(p gwv1.ProtocolType) gwv1.ProtocolType {
		if p == gwv1.HTTPSProtocolType {
			return gwv1.HTTPProtocolType
		}
		return p
	}
	rtProto, lisProto = norm(rtProto), norm(lisProto)
	if rtProto == gwv1.TCPProtocolType && lisProto == gwv1.TLSProtocolType {
		return true
	}
	return rtProto == lisProto
}

func str(p *string, def string) string {
	if p == nil || *p == "" {
		return def
	}
	return *p
}

// reportUnmatched reports each name of the hostname annotation of an attached route that is under no
// hostname of the listeners it attached to: external-dns skips such a name without a word.
func (r *resolver) reportUnmatched(o *source.Object, hosts, listenerHosts []string) {
	if len(listenerHosts) == 0 || slices.Contains(listenerHosts, "") {
		return
	}
	for _, h := range hosts {
		if h == "" || slices.ContainsFunc(listenerHosts, func(lh string) bool { _, ok := matchHost(lh, h); return ok }) {
			continue
		}
		// Only the annotation's names: a spec hostname outside every listener is the Gateway API's own
		// rule (a route may list names for other Gateways), an annotation is ours.
		v, field, ok := o.Annotation("hostname")
		if !ok || !slices.Contains(strings.Split(strings.ReplaceAll(v, " ", ""), ","), h) {
			continue
		}
		o.Problem(field, h, fmt.Sprintf("matches no hostname of the listeners the route is attached to (%s): not published", strings.Join(listenerHosts, ", ")))
	}
}
