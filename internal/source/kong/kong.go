// Package kong is the kong-tcpingress source: Kong TCPIngresses (configuration.konghq.com/v1beta1),
// read through the dynamic client into a small view; no Kong Go module is linked.
//
// The semantics are external-dns's: the names are the hostname annotation and every spec.rules[].host,
// the targets the target annotation, else every status.loadBalancer.ingress IP and hostname.
// --fqdn-template does not apply (external-dns's kong-tcpingress source ignores it).
package kong

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Resource is what the source reads: the version external-dns reads.
var Resource = schema.GroupVersionResource{Group: "configuration.konghq.com", Version: "v1beta1", Resource: "tcpingresses"}

// label is the kind of the resource label, "tcpingress/<ns>/<name>", as external-dns writes it.
const label = "tcpingress"

// Kind is --source=kong-tcpingress. It reads TCPIngresses in --namespace with get, list and watch, and
// waits for the CRD when it is missing.
func Kind() source.Kind {
	return source.Kind{
		Name:    "kong-tcpingress",
		Cluster: true,
		Labels:  []string{label},
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{{Group: Resource.Group, Version: Resource.Version, Resource: Resource.Resource, CRD: true}}
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			return source.NewCRDSource(ctx, env, crdKinds(env.Config))
		},
		Static: source.CRDStatic([]schema.GroupKind{{Group: Resource.Group, Kind: "TCPIngress"}}, crdKinds),
	}
}

func crdKinds(source.Config) []source.CRDKind {
	return []source.CRDKind{{GVR: Resource, Kind: "TCPIngress", Label: label, Read: read, NoTemplate: true}}
}

// tcpIngressView is what is read of a TCPIngress, with the names of Kong's Go type (TCPIngress,
// TCPIngressSpec, IngressRule, TCPIngressStatus).
type tcpIngressView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Rules []struct {
			Host string `json:"host,omitempty"`
			Port int    `json:"port,omitempty"`
		} `json:"rules,omitempty"`
	} `json:"spec"`
	Status struct {
		LoadBalancer corev1.LoadBalancerStatus `json:"loadBalancer,omitempty"`
	} `json:"status,omitempty"`
}

// read returns a TCPIngress's names (the hostname annotation, then spec.rules[].host) and targets.
func read(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	v := &tcpIngressView{}
	if !o.DecodeView(u, v) {
		return nil, source.Targets{}, nil, false
	}
	targets, present := o.TargetAnnotation()
	if !present {
		targets = source.LoadBalancerTargets(o, v.Status.LoadBalancer, "status.loadBalancer")
	}
	names := o.HostnameAnnotation()
	for i, r := range v.Spec.Rules {
		if r.Host == "" {
			continue // port-based routing: no name
		}
		if n := o.NormalizeHost(fmt.Sprintf("spec.rules[%d].host", i), r.Host); n != "" {
			names = append(names, n)
		}
	}
	return names, targets, v, true
}
