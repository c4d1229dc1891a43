package source

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// CRDKind is one custom resource kind a CRDSource reads (traefik, contour, openshift).
type CRDKind struct {
	GVR schema.GroupVersionResource
	// Kind is the API kind, for Problems and Events; Label the kind of the resource label
	// ("ingressroute" in "ingressroute/ns/name").
	Kind, Label string
	// Read turns one admitted object into the names it asks for (--fqdn-template aside), its targets,
	// and the typed view --fqdn-template runs over; ok is false when the object cannot be read (the
	// Problem is recorded).
	Read func(o *Object, u *unstructured.Unstructured) (names []string, targets Targets, view any, ok bool)
	// NoTemplate: --fqdn-template does not apply to this kind (external-dns's ambassador-host ignores it)
	// unless TargetTemplates gives its names targets.
	NoTemplate bool
	// TargetTemplates: --fqdn-target-template and --target-template apply, as in external-dns v0.23's
	// traefik-proxy and f5 sources: when the object made no record (or with --combine-fqdn-annotation),
	// the host:target pairs, then the --fqdn-template names pointing at the --target-template targets
	// (at the object's targets while no --target-template is set, unless NoTemplate).
	TargetTemplates bool
	// Unnamed, when set, reports whether external-dns makes a record without a name for the object (view
	// is what Read returned), which keeps the TargetTemplates passes from running as a record would.
	Unnamed func(view any) bool
	// TTLOnly: the records carry the resource label and the ttl annotation only, as external-dns's f5
	// sources write them; the hostname, set-identifier, alias and provider-specific annotations are not
	// read, and each one set on an object is reported.
	TTLOnly bool
}

// CRDSource publishes custom resources read through the dynamic client, kind by kind in the order
// given, objects in namespace/name order, with the rules every such source of external-dns shares:
// the filters, --fqdn-template when an object names nothing (always with --combine-fqdn-annotation),
// the record metadata from the annotations, and one merge over everything.
type CRDSource struct {
	k        *Kernel
	kinds    []CRDKind
	indexes  []cache.Indexer
	handlers Handlers
	// static: the objects come from manifest files (no Events); unread are problems about those the
	// configuration does not read.
	static bool
	unread []endpoint.Problem
	// merged lets an object's events make the endpoints of that object (ObjectEndpoints); byLabel maps
	// each resource-label kind to the places in kinds of the kinds labelled so (two for Traefik's
	// IngressRoutes with --traefik-enable-legacy: its two API groups label them alike).
	merged  mergedObjects
	byLabel map[string][]int
}

var (
	_ ObjectSource = (*CRDSource)(nil)
	_ ObjectLookup = (*CRDSource)(nil)
)

// NewCRDSource checks env.Config, starts the informers in --namespace and waits for their caches.
func NewCRDSource(ctx context.Context, env Env, kinds []CRDKind) (*CRDSource, error) {
	k, err := NewKernel(env.Config)
	if err != nil {
		return nil, err
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no resource to read")
	}
	s := &CRDSource{k: k, kinds: kinds, byLabel: labelsOf(kinds)}
	gvrs := make([]schema.GroupVersionResource, len(kinds))
	for i, kd := range kinds {
		gvrs[i] = kd.GVR
		s.handlers.NameObjects(Resource{Group: kd.GVR.Group, Resource: kd.GVR.Resource}.String(), kd.Label)
	}
	if s.indexes, err = WatchDynamic(ctx, env.Dynamic, env.Config.Namespace, &s.handlers, gvrs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Kernel returns the kernel the source generates with.
func (s *CRDSource) Kernel() *Kernel { return s.k }

// Cached returns the cached objects of kinds[kind], for a source built on this one whose other
// informers' events must find the objects that read theirs (Ambassador Hosts and their Services).
func (s *CRDSource) Cached(kind int) []any { return s.indexes[kind].List() }

// AddEventHandler registers fn for every change of a watched object.
func (s *CRDSource) AddEventHandler(fn func()) { s.handlers.Add(fn) }

// LookupObject finds an object by API kind or resource label kind, in the first of the kinds that holds
// it, with its apiVersion and kind set, for Events.
func (s *CRDSource) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if s.static {
		return nil, false
	}
	var gvks []schema.GroupVersionKind
	var idxs []cache.Indexer
	for i, kd := range s.kinds {
		if KindMatches(kind, kd.Kind, kd.Label) {
			gvks = append(gvks, kd.GVR.GroupVersion().WithKind(kd.Kind))
			idxs = append(idxs, s.indexes[i])
		}
	}
	return LookupDynamic(namespace, name, gvks, idxs)
}

// Endpoints returns the records of every admitted object, merged as external-dns merges them.
func (s *CRDSource) Endpoints(ctx context.Context) (Result, error) {
	var problems Problems
	var eps []*endpoint.Endpoint
	for i, kd := range s.kinds {
		for _, u := range SortedObjects(s.indexes[i]) {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			eps = append(eps, s.objectEndpoints(kd, u, &problems)...)
		}
	}
	if !s.static {
		s.merged.remember(eps)
	}
	return Result{Endpoints: MergeEndpoints(eps), Problems: append(problems.Items(), s.unread...)}, nil
}

// labelsOf maps each resource-label kind to the indexes of the kinds labelled so, in order.
func labelsOf(kinds []CRDKind) map[string][]int {
	out := make(map[string][]int, len(kinds))
	for i, kd := range kinds {
		out[kd.Label] = append(out[kd.Label], i)
	}
	return out
}

// ObjectKinds implements ObjectSource: the kinds' resource-label kinds, each once; an object's
// endpoints depend on it and on the objects they are merged with (ObjectEndpoints makes those too).
// Sources built on this one whose objects read others say otherwise.
func (s *CRDSource) ObjectKinds() []string {
	if s.static {
		return nil
	}
	out := make([]string, 0, len(s.byLabel))
	for _, kd := range s.kinds {
		if !slices.Contains(out, kd.Label) {
			out = append(out, kd.Label)
		}
	}
	return out
}

// AddObjectHandler implements ObjectSource.
func (s *CRDSource) AddObjectHandler(fn func(resource string)) { s.handlers.AddObject(fn) }

// ObjectEndpoints implements ObjectSource: the named objects and every object of these kinds sharing a
// name with them, made and merged as Endpoints makes and merges them (kind by kind, then by
// namespace and name). A label names the object of that namespace and name of every kind labelled so
// (a Traefik route of either API group).
func (s *CRDSource) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	if s.ObjectKinds() == nil {
		return Result{}, fmt.Errorf("these kinds cannot make the endpoints of single objects")
	}
	// made[i] holds what kinds[i]'s objects made, by label: two kinds sharing a label interleave in
	// Endpoints (every object of the first, then of the second), not label by label, so the answer is
	// merged again below in that order. endpointsOf gets copies, as its merge unites targets in place.
	made := make([]map[string][]*endpoint.Endpoint, len(s.kinds))
	res, err := s.merged.endpointsOf(ctx, resources, func(resource string, problems *Problems) ([]*endpoint.Endpoint, bool, error) {
		kinds, ok := s.byLabel[ResourceKind(resource)]
		if !ok {
			return nil, false, fmt.Errorf("%s is none of this source's kinds", resource)
		}
		var eps []*endpoint.Endpoint
		found := false
		for _, i := range kinds {
			u, ok, err := CachedUnstructured(s.indexes[i], resource, s.kinds[i].Label)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				continue
			}
			found = true
			own := s.objectEndpoints(s.kinds[i], u, problems)
			if made[i] == nil {
				made[i] = map[string][]*endpoint.Endpoint{}
			}
			made[i][resource] = own
			for _, e := range own {
				eps = append(eps, e.DeepCopy())
			}
		}
		return eps, found, nil
	}, func(a, b string) int {
		if la, lb := s.byLabel[ResourceKind(a)][0], s.byLabel[ResourceKind(b)][0]; la != lb {
			return la - lb
		}
		return compareNamespacedResources(a, b)
	})
	if err != nil {
		return Result{}, err
	}
	var eps []*endpoint.Endpoint
	for i := range s.kinds {
		for _, r := range res.Objects { // in namespace/name order within a label
			eps = append(eps, made[i][r]...)
		}
	}
	res.Endpoints = MergeEndpoints(eps)
	return res, nil
}

// CRDStatic is the StaticKind of a CRDSource kind: objects names the object kinds it may read from
// manifests, kinds the CRDKinds a configuration reads (their Read functions; GVR.Resource unused).
func CRDStatic(objects []schema.GroupKind, kinds func(Config) []CRDKind) *StaticKind {
	return &StaticKind{
		Objects: objects,
		New: func(cfg Config, objs []*unstructured.Unstructured) (Source, error) {
			return NewStaticCRDSource(cfg, kinds(cfg), objs)
		},
	}
}

// NewStaticCRDSource is a CRDSource over objects decoded from manifest files (zonekeeper plan,
// --source=manifest): each object goes to the kind of its group and kind (any version); namespaced
// objects without a namespace are in "default", as kubectl would put them; objects outside
// --namespace are left out; an object of a group the configuration does not read (a legacy Traefik
// group without --traefik-enable-legacy) is a Problem. It serves no Events.
func NewStaticCRDSource(cfg Config, kinds []CRDKind, objs []*unstructured.Unstructured) (*CRDSource, error) {
	k, err := NewKernel(cfg)
	if err != nil {
		return nil, err
	}
	s := &CRDSource{k: k, kinds: kinds, static: true, indexes: make([]cache.Indexer, len(kinds))}
	for i := range kinds {
		s.indexes[i] = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	}
	for _, u := range objs {
		if u.GetNamespace() == "" {
			u = u.DeepCopy()
			u.SetNamespace("default")
		}
		if cfg.Namespace != "" && u.GetNamespace() != cfg.Namespace {
			continue
		}
		gvk := u.GroupVersionKind()
		i := slices.IndexFunc(kinds, func(kd CRDKind) bool { return kd.GVR.Group == gvk.Group && kd.Kind == gvk.Kind })
		if i < 0 {
			s.unread = append(s.unread, endpoint.Problem{
				Object: endpoint.ObjectRef{Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()},
				Field:  "apiVersion", Value: u.GetAPIVersion(), Reason: "this API group is not read with these flags",
			})
			continue
		}
		if err := s.indexes[i].Add(u); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *CRDSource) objectEndpoints(kd CRDKind, u *unstructured.Unstructured, problems *Problems) []*endpoint.Endpoint {
	o := s.k.Object(endpoint.ObjectRef{Kind: kd.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}, u.GetAnnotations(), problems)
	if !o.Admitted(u.GetLabels()) {
		return nil
	}
	names, targets, view, ok := kd.Read(o, u)
	if !ok {
		return nil
	}
	o.ReportUnread(kd.Kind)
	if kd.TTLOnly {
		o.in.reportUnread(kd.Kind, ttlOnlyUnread)
	}
	if tv, typed := view.(interface{ SetGroupVersionKind(schema.GroupVersionKind) }); typed {
		tv.SetGroupVersionKind(kd.GVR.GroupVersion().WithKind(kd.Kind)) // objects from a watch have none
	}
	if set, combine := s.k.HasTemplate(); set && !kd.NoTemplate && !kd.TargetTemplates && (combine || len(names) == 0) {
		names = append(names, o.TemplateHostnames(view)...)
	}
	resource := kd.Label + "/" + u.GetNamespace() + "/" + u.GetName()
	var meta RecordMeta
	if kd.TTLOnly {
		meta = RecordMeta{m: recordMeta{resource: resource, ttl: o.in.ttl()}}
	} else {
		meta = o.Meta(resource)
	}
	var eps []*endpoint.Endpoint
	for _, n := range names {
		eps = append(eps, meta.Endpoints(n, targets)...)
	}
	if kd.TargetTemplates {
		own := &targets.t
		if kd.NoTemplate {
			own = nil
		}
		unnamed := 0
		if kd.Unnamed != nil && kd.Unnamed(view) {
			unnamed = 1
		}
		eps = s.k.c.applyTargetTemplates(&o.in, meta.m, eps, unnamed, view, own)
	}
	if len(eps) > 0 {
		o.in.read |= recordsMade // Meta marks it; the TTLOnly kinds, without addresses yet, publish nothing
	}
	return eps
}

// ttlOnlyUnread are the annotations a TTLOnly kind does not read (provider-specific ones aside).
var ttlOnlyUnread = []string{keyHostname, keySetIdentifier, keyAlias}

// LoadBalancerTargets returns every ingress IP and hostname of a load balancer status read from field
// of o ("status.loadBalancer").
func LoadBalancerTargets(o *Object, lb corev1.LoadBalancerStatus, field string) Targets {
	return IngressTargets(o, lb.Ingress, field+".ingress")
}

// IngressTargets returns every IP and hostname of a list of load balancer ingress points read from field
// of o ("status.loadBalancer.ingress"; a Skipper RouteGroup's "status.loadBalancer.routegroup").
func IngressTargets(o *Object, ingress []corev1.LoadBalancerIngress, field string) Targets {
	var t Targets
	for i, in := range ingress {
		if in.IP != "" {
			t.Add(o, fmt.Sprintf("%s[%d].ip", field, i), in.IP)
		}
		if in.Hostname != "" {
			t.Add(o, fmt.Sprintf("%s[%d].hostname", field, i), in.Hostname)
		}
	}
	return t
}
