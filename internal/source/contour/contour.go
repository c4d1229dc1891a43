// Package contour is the contour-httpproxy source: Contour HTTPProxies (projectcontour.io/v1), read
// through the dynamic client into a small view.
//
// The semantics are external-dns v0.21.0's: the names are spec.virtualhost.fqdn and the hostname
// annotation, the targets the target annotation, else every status.loadBalancer.ingress IP and hostname.
package contour

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Resource is what the source reads.
var Resource = schema.GroupVersionResource{Group: "projectcontour.io", Version: "v1", Resource: "httpproxies"}

// label is the kind of the resource label, "HTTPProxy/<ns>/<name>", as external-dns writes it.
const label = "HTTPProxy"

// Kind is --source=contour-httpproxy. It reads HTTPProxies in --namespace with get, list and watch,
// and waits for the CRD when it is missing.
func Kind() source.Kind {
	return source.Kind{
		Name:    "contour-httpproxy",
		Cluster: true,
		Labels:  []string{label},
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{{Group: Resource.Group, Version: Resource.Version, Resource: Resource.Resource, CRD: true}}
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			return source.NewCRDSource(ctx, env, crdKinds(env.Config))
		},
		Static: source.CRDStatic([]schema.GroupKind{{Group: Resource.Group, Kind: "HTTPProxy"}}, crdKinds),
	}
}

func crdKinds(source.Config) []source.CRDKind {
	return []source.CRDKind{{GVR: Resource, Kind: "HTTPProxy", Label: label, Read: read}}
}

// proxyView is what is read of an HTTPProxy, with the names of Contour's Go type, so that
// --fqdn-template reads {{.Spec.VirtualHost.Fqdn}} or {{.Status.LoadBalancer}} as it would on it.
type proxyView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		VirtualHost *struct {
			Fqdn string `json:"fqdn"`
		} `json:"virtualhost,omitempty"`
	} `json:"spec"`
	Status struct {
		CurrentStatus string                    `json:"currentStatus,omitempty"`
		Description   string                    `json:"description,omitempty"`
		LoadBalancer  corev1.LoadBalancerStatus `json:"loadBalancer,omitempty"`
	} `json:"status,omitempty"`
}

// read returns an HTTPProxy's names (spec.virtualhost.fqdn, then the hostname annotation) and targets.
func read(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	p := &proxyView{}
	if !o.DecodeView(u, p) {
		return nil, source.Targets{}, nil, false
	}
	targets, present := o.TargetAnnotation()
	if !present {
		targets = source.LoadBalancerTargets(o, p.Status.LoadBalancer, "status.loadBalancer")
	}
	var names []string
	if vh := p.Spec.VirtualHost; vh != nil && vh.Fqdn != "" {
		if n := o.NormalizeHost("spec.virtualhost.fqdn", vh.Fqdn); n != "" {
			names = append(names, n)
		}
	}
	return append(names, o.HostnameAnnotation()...), targets, p, true
}
