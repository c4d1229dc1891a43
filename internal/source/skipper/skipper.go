// Package skipper is the skipper-routegroup source: Skipper RouteGroups (zalando.org/v1, or the group
// and version of --skipper-routegroup-groupversion), read through the dynamic client into a small view;
// no Skipper Go module is linked.
//
// The semantics are external-dns's: the names are every spec.hosts entry and the hostname annotation
// (--fqdn-template when there is none, always with --combine-fqdn-annotation), the targets the target
// annotation, else every status.loadBalancer.routegroup IP and hostname.
package skipper

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// DefaultGroupVersion is --skipper-routegroup-groupversion's default, Skipper's RouteGroup API.
const DefaultGroupVersion = "zalando.org/v1"

// resource is the resource of RouteGroups in every group and version.
const resource = "routegroups"

// label is the kind of the resource label, "routegroup/<ns>/<name>", as external-dns writes it.
const label = "routegroup"

// ParseGroupVersion checks a --skipper-routegroup-groupversion value: a group and a version, as
// external-dns puts them in the path /apis/<group>/<version>/routegroups ("" is the default).
func ParseGroupVersion(s string) (schema.GroupVersion, error) {
	if s == "" {
		s = DefaultGroupVersion
	}
	gv, err := schema.ParseGroupVersion(s)
	if err == nil && (gv.Group == "" || gv.Version == "") {
		err = fmt.Errorf("want <group>/<version>, such as %s", DefaultGroupVersion)
	}
	if err != nil {
		return schema.GroupVersion{}, fmt.Errorf("--skipper-routegroup-groupversion=%s: %w", s, err)
	}
	return gv, nil
}

// Resource is what the source reads with cfg: routegroups in the group and version of
// --skipper-routegroup-groupversion (zalando.org/v1 by default, and when the value is not valid, which
// the flags refuse).
func Resource(cfg source.Config) schema.GroupVersionResource {
	gv, err := ParseGroupVersion(cfg.SkipperRouteGroupVersion)
	if err != nil {
		gv, _ = ParseGroupVersion("")
	}
	return gv.WithResource(resource)
}

// Kind is --source=skipper-routegroup. It reads RouteGroups in --namespace with get, list and watch,
// and waits for the CRD when it is missing. (External-dns lists them at every run; it writes nothing
// back, so the status subresource is not needed.)
func Kind() source.Kind {
	return source.Kind{
		Name:    "skipper-routegroup",
		Cluster: true,
		Labels:  []string{label},
		Reads: func(cfg source.Config) []source.Resource {
			r := Resource(cfg)
			return []source.Resource{{Group: r.Group, Version: r.Version, Resource: r.Resource, CRD: true}}
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			if _, err := ParseGroupVersion(env.Config.SkipperRouteGroupVersion); err != nil {
				return nil, err
			}
			return source.NewCRDSource(ctx, env, crdKinds(env.Config))
		},
		Static: source.CRDStatic([]schema.GroupKind{{Group: Resource(source.Config{}).Group, Kind: "RouteGroup"}}, crdKinds),
	}
}

func crdKinds(cfg source.Config) []source.CRDKind {
	return []source.CRDKind{{GVR: Resource(cfg), Kind: "RouteGroup", Label: label, Read: read}}
}

// routeGroupView is what is read of a RouteGroup, with the names of the type external-dns reads it
// into, so that --fqdn-template reads {{.Name}}, {{index .Spec.Hosts 0}},
// {{.Status.LoadBalancer.RouteGroup}} or the older {{.Metadata.Name}} as it would there.
type routeGroupView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Hosts []string `json:"hosts,omitempty"`
	} `json:"spec"`
	Status struct {
		LoadBalancer struct {
			// The CRD spells the field routegroup; external-dns's JSON decoding matches it to its
			// routeGroup case-insensitively. Each entry has an ip or a hostname, as a Service's
			// load balancer ingress.
			RouteGroup []corev1.LoadBalancerIngress `json:"routegroup,omitempty"`
		} `json:"loadBalancer"`
	} `json:"status,omitempty"`
}

// Metadata is the object's metadata, for templates written as {{.Metadata.Name}}.
func (v *routeGroupView) Metadata() *metav1.ObjectMeta { return &v.ObjectMeta }

// read returns a RouteGroup's names (spec.hosts, then the hostname annotation) and targets.
func read(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	v := &routeGroupView{}
	if !o.DecodeView(u, v) {
		return nil, source.Targets{}, nil, false
	}
	targets, present := o.TargetAnnotation()
	if !present {
		targets = source.IngressTargets(o, v.Status.LoadBalancer.RouteGroup, "status.loadBalancer.routegroup")
	}
	var names []string
	for i, h := range v.Spec.Hosts {
		if h == "" {
			continue
		}
		if n := o.NormalizeHost(fmt.Sprintf("spec.hosts[%d]", i), h); n != "" {
			names = append(names, n)
		}
	}
	return append(names, o.HostnameAnnotation()...), targets, v, true
}
