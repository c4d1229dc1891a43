package source

import (
	"fmt"
	"maps"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// cachedIngress is what the Ingress source's informer keeps of an Ingress when no template is
// configured: the fields the source reads (identity for Events and the update filter, labels and
// annotations, class, rule and TLS hosts, load balancer addresses) without the rest of ObjectMeta,
// TypeMeta and the spec and status structs around them (issue 15; TestCompactIngressBytes). A rule
// and a TLS entry keep their places so that a problem names spec.rules[i] by the object's index.
//
// Its fields are exported for the update filter's reflective comparison (equality.Semantic), which
// cannot read unexported ones. It is a runtime.Object and a metav1.Object for client-go's store, key
// functions and the update filter. A getter or setter of a field it does not keep panics: no reader
// may take a dropped field for empty (TestCachedIngressDroppedFieldsPanic), and client-go's informer
// reads only the identity fields (TestIngressEventsNameTheirObject runs it against kube-apiserver). Templates see the whole object, so with a template configured the informer keeps
// the full Ingress instead (ingressTransform).
type cachedIngress struct {
	Name, Namespace     string
	UID                 types.UID
	ResourceVersion     string
	Labels, Annotations map[string]string
	Class               *string
	// Rules are spec.rules[i].host ("" for a rule without), TLS spec.tls[i].hosts, each at its index.
	Rules     []string
	TLS       [][]string
	Addresses []cachedAddress
}

// cachedAddress is a status.loadBalancer.ingress entry without its ports (nothing reads them): 32
// bytes instead of 56.
type cachedAddress struct{ IP, Hostname string }

// compactIngress is ing's cachedIngress, sharing its strings, maps and TLS host slices (the
// transform's object is the informer's own, so nothing else holds them).
func compactIngress(ing *networkingv1.Ingress) *cachedIngress {
	c := &cachedIngress{
		Name: ing.Name, Namespace: ing.Namespace, UID: ing.UID, ResourceVersion: ing.ResourceVersion,
		Labels: ing.Labels, Annotations: ing.Annotations, Class: ing.Spec.IngressClassName,
	}
	if len(ing.Spec.Rules) > 0 {
		c.Rules = make([]string, len(ing.Spec.Rules))
		for i, r := range ing.Spec.Rules {
			c.Rules[i] = r.Host
		}
	}
	if len(ing.Spec.TLS) > 0 {
		c.TLS = make([][]string, len(ing.Spec.TLS))
		for i, tls := range ing.Spec.TLS {
			c.TLS[i] = tls.Hosts
		}
	}
	if lbs := ing.Status.LoadBalancer.Ingress; len(lbs) > 0 {
		c.Addresses = make([]cachedAddress, len(lbs))
		for i, lb := range lbs {
			c.Addresses[i] = cachedAddress{IP: lb.IP, Hostname: lb.Hostname}
		}
	}
	return c
}

// ingressOf is a cached Ingress as the source reads it: its compact fields, and the full Ingress when
// the cache holds one (with a template configured, from manifests, or behind NewIngressFromLister),
// for the templates. Any other object is an error naming its type.
func ingressOf(obj any) (*cachedIngress, *networkingv1.Ingress, error) {
	switch o := obj.(type) {
	case *cachedIngress:
		return o, nil, nil
	case *networkingv1.Ingress:
		return compactIngress(o), o, nil
	}
	return nil, nil, fmt.Errorf("the Ingress cache holds a %T", obj)
}

// reference is the Ingress an Event is recorded on: its identity, as an ObjectReference takes it
// (kind and API version come from the scheme).
func (c *cachedIngress) reference() *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: c.Namespace, UID: c.UID,
		ResourceVersion: c.ResourceVersion, Labels: c.Labels, Annotations: c.Annotations}}
}

// GetObjectKind implements runtime.Object: a cached object carries no kind, as decoded typed objects
// in an informer's cache do not.
func (c *cachedIngress) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object. The update filter copies to compare without the
// resourceVersion.
func (c *cachedIngress) DeepCopyObject() runtime.Object {
	out := *c
	out.Labels, out.Annotations = maps.Clone(c.Labels), maps.Clone(c.Annotations)
	if c.Class != nil {
		class := *c.Class
		out.Class = &class
	}
	out.Rules = slices.Clone(c.Rules)
	if c.TLS != nil {
		out.TLS = make([][]string, len(c.TLS))
		for i, hosts := range c.TLS {
			out.TLS[i] = slices.Clone(hosts)
		}
	}
	out.Addresses = slices.Clone(c.Addresses)
	return &out
}

// notKept is the panic of a getter or setter of a field cachedIngress does not keep.
func notKept(field string) string {
	return "the cached Ingress keeps no metadata." + field + " (source.cachedIngress): read it from the full Ingress"
}

// The metav1.Object methods of the kept fields.

func (c *cachedIngress) GetName() string                    { return c.Name }
func (c *cachedIngress) SetName(v string)                   { c.Name = v }
func (c *cachedIngress) GetNamespace() string               { return c.Namespace }
func (c *cachedIngress) SetNamespace(v string)              { c.Namespace = v }
func (c *cachedIngress) GetUID() types.UID                  { return c.UID }
func (c *cachedIngress) SetUID(v types.UID)                 { c.UID = v }
func (c *cachedIngress) GetResourceVersion() string         { return c.ResourceVersion }
func (c *cachedIngress) SetResourceVersion(v string)        { c.ResourceVersion = v }
func (c *cachedIngress) GetLabels() map[string]string       { return c.Labels }
func (c *cachedIngress) SetLabels(v map[string]string)      { c.Labels = v }
func (c *cachedIngress) GetAnnotations() map[string]string  { return c.Annotations }
func (c *cachedIngress) SetAnnotations(v map[string]string) { c.Annotations = v }
func (c *cachedIngress) GetGenerateName() string            { panic(notKept("generateName")) }
func (c *cachedIngress) SetGenerateName(string)             { panic(notKept("generateName")) }
func (c *cachedIngress) GetGeneration() int64               { panic(notKept("generation")) }
func (c *cachedIngress) SetGeneration(int64)                { panic(notKept("generation")) }
func (c *cachedIngress) GetSelfLink() string                { panic(notKept("selfLink")) }
func (c *cachedIngress) SetSelfLink(string)                 { panic(notKept("selfLink")) }
func (c *cachedIngress) GetCreationTimestamp() metav1.Time  { panic(notKept("creationTimestamp")) }
func (c *cachedIngress) SetCreationTimestamp(metav1.Time)   { panic(notKept("creationTimestamp")) }
func (c *cachedIngress) GetDeletionTimestamp() *metav1.Time { panic(notKept("deletionTimestamp")) }
func (c *cachedIngress) SetDeletionTimestamp(*metav1.Time)  { panic(notKept("deletionTimestamp")) }
func (c *cachedIngress) GetFinalizers() []string            { panic(notKept("finalizers")) }
func (c *cachedIngress) SetFinalizers([]string)             { panic(notKept("finalizers")) }
func (c *cachedIngress) GetDeletionGracePeriodSeconds() *int64 {
	panic(notKept("deletionGracePeriodSeconds"))
}
func (c *cachedIngress) SetDeletionGracePeriodSeconds(*int64) {
	panic(notKept("deletionGracePeriodSeconds"))
}
func (c *cachedIngress) GetOwnerReferences() []metav1.OwnerReference {
	panic(notKept("ownerReferences"))
}
func (c *cachedIngress) SetOwnerReferences([]metav1.OwnerReference) {
	panic(notKept("ownerReferences"))
}
func (c *cachedIngress) GetManagedFields() []metav1.ManagedFieldsEntry {
	panic(notKept("managedFields"))
}
func (c *cachedIngress) SetManagedFields([]metav1.ManagedFieldsEntry) {
	panic(notKept("managedFields"))
}

var (
	_ runtime.Object = (*cachedIngress)(nil)
	_ metav1.Object  = (*cachedIngress)(nil)
)
