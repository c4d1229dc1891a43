package source

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// DNSEndpointResource is external-dns's DNSEndpoint resource (config/crd holds its CRD).
func DNSEndpointResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "externaldns.k8s.io", Version: "v1alpha1", Resource: "dnsendpoints"}
}

// DNSEndpoint is the part of a DNSEndpoint object the source reads. The endpoints use the Endpoint
// JSON shape, so objects written for external-dns decode unchanged.
type DNSEndpoint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Endpoints []*endpoint.Endpoint `json:"endpoints,omitempty"`
	} `json:"spec,omitempty"`
}

// DNSEndpointSource publishes the endpoints listed in DNSEndpoint objects (--source=crd).
type DNSEndpointSource struct {
	c        *compiled
	lister   cache.GenericLister
	handlers eventHandlers
	// merged lets events make the endpoints of the DNSEndpoints they name (ObjectEndpoints).
	merged mergedObjects
}

var _ ObjectSource = (*DNSEndpointSource)(nil)

// dnsEndpointKind is the resource-label kind of a DNSEndpoint's endpoints, as in external-dns.
const dnsEndpointKind = "crd"

// NewDNSEndpoint returns a DNSEndpoint source backed by a dynamic informer. It fails at once, with the
// fix, when the CRD is not installed, instead of waiting forever for a cache that cannot sync.
func NewDNSEndpoint(ctx context.Context, disc *kube.Client, client dynamic.Interface, cfg Config) (*DNSEndpointSource, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	gvr := DNSEndpointResource()
	resources, err := disc.ServerResourcesForGroupVersion(ctx, gvr.GroupVersion().String())
	if err != nil || !servesResource(resources, gvr.Resource) {
		return nil, fmt.Errorf("the API server does not serve %s (install the CRD: kubectl apply -f config/crd/dnsendpoints.externaldns.k8s.io.yaml): %v",
			gvr.GroupResource(), err)
	}
	inf := kube.DynamicInformer(client, gvr, cfg.Namespace)
	if err := inf.SetTransform(trimObject); err != nil {
		return nil, err
	}
	s := &DNSEndpointSource{c: c, lister: cache.NewGenericLister(inf.GetIndexer(), gvr.GroupResource())}
	s.handlers.nameObjects("dnsendpoints", dnsEndpointKind)
	if err := s.handlers.watch("dnsendpoints", inf); err != nil {
		return nil, err
	}
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, fmt.Errorf("cache of dnsendpoints did not sync before the context ended (check RBAC list/watch): %w", context.Cause(ctx))
	}
	return s, nil
}

func servesResource(list *metav1.APIResourceList, name string) bool {
	if list == nil {
		return false
	}
	for _, r := range list.APIResources {
		if r.Name == name {
			return true
		}
	}
	return false
}

// Endpoints returns the valid endpoints of every admitted DNSEndpoint, in namespace/name order. An
// invalid entry is reported as a Problem naming the object and the entry's field, and skipped alone.
func (s *DNSEndpointSource) Endpoints(ctx context.Context) (Result, error) {
	objs, err := s.Objects()
	if err != nil {
		return Result{}, err
	}
	var problems problemList
	var eps []*endpoint.Endpoint
	for _, d := range objs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		eps = append(eps, s.c.dnsEndpointEndpoints(d, &problems)...)
	}
	s.merged.remember(eps)
	return Result{Endpoints: mergeEndpoints(eps), Problems: problems.items}, nil
}

// ObjectKinds implements ObjectSource: a DNSEndpoint's endpoints depend on it and on the DNSEndpoints
// they are merged with (ObjectEndpoints makes those too).
func (s *DNSEndpointSource) ObjectKinds() []string { return []string{dnsEndpointKind} }

// AddObjectHandler implements ObjectSource.
func (s *DNSEndpointSource) AddObjectHandler(fn func(resource string)) { s.handlers.addObject(fn) }

// ObjectEndpoints implements ObjectSource: the named DNSEndpoints and those sharing a name with
// them, merged as Endpoints merges them, made by the function Endpoints uses for each object.
func (s *DNSEndpointSource) ObjectEndpoints(ctx context.Context, resources []string) (Result, error) {
	return s.merged.endpointsOf(ctx, resources, s.ownEndpoints, compareNamespacedResources)
}

// ownEndpoints makes one DNSEndpoint's endpoints, as Endpoints does before merging across objects.
func (s *DNSEndpointSource) ownEndpoints(resource string, problems *Problems) ([]*endpoint.Endpoint, bool, error) {
	d, found, err := s.Object(resource)
	if err != nil || !found {
		return nil, false, err
	}
	return s.c.dnsEndpointEndpoints(d, &problems.list), true, nil
}

// Object returns the cached DNSEndpoint of a resource label ("crd/namespace/name"), decoded.
func (s *DNSEndpointSource) Object(resource string) (*DNSEndpoint, bool, error) {
	o, found, err := cachedByLabel(resource, dnsEndpointKind, func(namespace, name string) (runtime.Object, error) {
		return s.lister.ByNamespace(namespace).Get(name)
	})
	if err != nil || !found {
		return nil, false, err
	}
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil, false, fmt.Errorf("%s is a %T in the cache", resource, o)
	}
	return decodeDNSEndpoint(u), true, nil
}

// Objects returns the cached DNSEndpoint objects, decoded, in namespace/name order.
func (s *DNSEndpointSource) Objects() ([]*DNSEndpoint, error) {
	list, err := s.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := make([]*DNSEndpoint, 0, len(list))
	for _, o := range list {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		out = append(out, decodeDNSEndpoint(u))
	}
	sort.Slice(out, func(i, j int) bool { return objectLess(out[i], out[j]) })
	return out, nil
}

// decodeDNSEndpoint decodes a cached object. The CRD's schema makes a failure rare (an object stored
// before the schema existed); such an object is reported with no endpoints rather than failing every
// other object.
func decodeDNSEndpoint(u *unstructured.Unstructured) *DNSEndpoint {
	d := &DNSEndpoint{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
		d = &DNSEndpoint{ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: u.GetName(), Generation: u.GetGeneration(), UID: u.GetUID()}}
		d.Annotations = map[string]string{decodeErrorAnnotation: err.Error()}
	}
	return d
}

// decodeErrorAnnotation carries a decoding failure from Objects to generation; it never leaves the
// process.
const decodeErrorAnnotation = "zonekeeper.internal/decode-error"

// AddEventHandler registers fn to be called on every change of a DNSEndpoint.
func (s *DNSEndpointSource) AddEventHandler(fn func()) { s.handlers.add(fn) }

// LookupObject implements ObjectLookup for DNSEndpoints; the resource label kind is "crd", as in
// external-dns.
func (s *DNSEndpointSource) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	if !strings.EqualFold(kind, "crd") && !strings.EqualFold(kind, "DNSEndpoint") {
		return nil, false
	}
	obj, err := s.lister.ByNamespace(namespace).Get(name)
	if err != nil {
		return nil, false
	}
	return obj, true
}

// dnsEndpointEndpoints validates and labels the endpoints of one object.
func (c *compiled) dnsEndpointEndpoints(d *DNSEndpoint, problems *problemList) []*endpoint.Endpoint {
	o := &objectInput{
		ref:         endpoint.ObjectRef{Kind: "DNSEndpoint", Namespace: d.Namespace, Name: d.Name},
		annotations: d.Annotations,
		reader:      c.annotations,
		problems:    problems,
	}
	if msg, bad := d.Annotations[decodeErrorAnnotation]; bad {
		o.problem("spec", "", "cannot decode the object: "+msg)
		return nil
	}
	if !c.admitsObject(o, d.Labels) {
		return nil
	}
	resource := fmt.Sprintf("crd/%s/%s", d.Namespace, d.Name)
	var out []*endpoint.Endpoint
	for i, in := range d.Spec.Endpoints {
		if in == nil {
			continue
		}
		e := in.DeepCopy()
		e.RecordType = strings.ToUpper(strings.TrimSpace(e.RecordType))
		field := fmt.Sprintf("spec.endpoints[%d]", i)
		if e.RecordType == "" {
			o.problem(field+".recordType", "", "a record type is required")
			continue
		}
		c.applicableProperties(o, e, field)
		// The registry labels ownership TXTs with the record they guard; from an object, the label
		// would make a provider take the entry for one (Cloudflare's adjust).
		if v, ok := e.Labels[endpoint.OwnedRecordLabelKey]; ok {
			o.problem(field+".labels."+endpoint.OwnedRecordLabelKey, v, "set by the TXT registry on ownership records, never by an object: ignored")
			delete(e.Labels, endpoint.OwnedRecordLabelKey)
		}
		// Ownership comes from the registry (--txt-owner-id), never from the object: a forged owner
		// would claim or disown a record.
		if v, ok := e.Labels[endpoint.OwnerLabelKey]; ok {
			o.problem(field+".labels."+endpoint.OwnerLabelKey, v, "ownership is set by the registry (--txt-owner-id), never by an object: ignored")
			delete(e.Labels, endpoint.OwnerLabelKey)
		}
		entries := []*endpoint.Endpoint{e}
		if len(e.Targets) == 0 && len(c.DefaultTargets) > 0 && isAddressType(e.RecordType) {
			entries = defaultTargetEndpoints(e, c.DefaultTargets)
		}
		for _, e := range entries {
			if ferr := e.Validate(); ferr != nil {
				o.problem(field+"."+ferr.Field, ferr.Value, ferr.Reason)
				continue
			}
			if e.Labels == nil {
				e.Labels = endpoint.Labels{}
			}
			e.Labels[endpoint.ResourceLabelKey] = resource
			out = append(out, e)
		}
	}
	return out
}

// applicableProperties drops from e (a copy) the properties no configured provider kind reads, each a
// problem naming its field (Config.ProviderProperties).
func (c *compiled) applicableProperties(o *objectInput, e *endpoint.Endpoint, field string) {
	if c.annotations.properties == nil {
		return
	}
	kept := e.ProviderSpecific[:0:0]
	for j, p := range e.ProviderSpecific {
		if why := c.annotations.properties.unread(p.Name); why != "" {
			o.problem(fmt.Sprintf("%s.providerSpecific[%d]", field, j), p.Name+"="+p.Value, why)
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) < len(e.ProviderSpecific) {
		e.ProviderSpecific = kept
	}
}
