// Package openshift is the openshift-route source: OpenShift Routes (route.openshift.io/v1), read
// through the dynamic client into a small view; no OpenShift client module is linked.
//
// The semantics are external-dns v0.21.0's: a Route is published under the host its router admitted it
// with (status.ingress[].host, not spec.host) and points at that router's routerCanonicalHostname, or at
// the target annotation; the hostname annotation adds names.
package openshift

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Resource is what the source reads.
var Resource = schema.GroupVersionResource{Group: "route.openshift.io", Version: "v1", Resource: "routes"}

// Kind is --source=openshift-route. It reads Routes in --namespace with get, list and watch, and waits
// for the CRD (or the OpenShift API) when it is missing.
func Kind() source.Kind {
	return source.Kind{
		Name:    "openshift-route",
		Cluster: true,
		Labels:  []string{"route"},
		Reads: func(source.Config) []source.Resource {
			return []source.Resource{{Group: Resource.Group, Version: Resource.Version, Resource: Resource.Resource, CRD: true}}
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			return source.NewCRDSource(ctx, env, crdKinds(env.Config))
		},
		Static: source.CRDStatic([]schema.GroupKind{{Group: Resource.Group, Kind: "Route"}}, crdKinds),
	}
}

func crdKinds(cfg source.Config) []source.CRDKind {
	r := reader{router: cfg.OpenShiftRouterName}
	return []source.CRDKind{{GVR: Resource, Kind: "Route", Label: "route", Read: r.read}}
}

// routeView is what is read of a Route, with the names of OpenShift's Go type, so that --fqdn-template
// reads {{.Spec.Host}}, {{.Spec.To.Name}} or {{(index .Status.Ingress 0).RouterName}} as it would on it.
type routeView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Host      string `json:"host,omitempty"`
		Subdomain string `json:"subdomain,omitempty"`
		Path      string `json:"path,omitempty"`
		To        struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"to"`
		WildcardPolicy string `json:"wildcardPolicy,omitempty"`
	} `json:"spec"`
	Status struct {
		Ingress []routeIngress `json:"ingress,omitempty"`
	} `json:"status,omitempty"`
}

type routeIngress struct {
	Host                    string `json:"host,omitempty"`
	RouterName              string `json:"routerName,omitempty"`
	RouterCanonicalHostname string `json:"routerCanonicalHostname,omitempty"`
	WildcardPolicy          string `json:"wildcardPolicy,omitempty"`
	Conditions              []struct {
		Type   string `json:"type"`
		Status string `json:"status"`
	} `json:"conditions,omitempty"`
}

// admitted reports whether the router admitted the route: its first Admitted condition is True.
func (in routeIngress) admitted() bool {
	for _, c := range in.Conditions {
		if c.Type == "Admitted" {
			return c.Status == "True"
		}
	}
	return false
}

type reader struct {
	// router is --openshift-router-name: only its status entry counts ("" for the first admitting router).
	router string
}

// read returns a Route's names (the admitting router's host, then the hostname annotation) and targets.
func (r reader) read(o *source.Object, u *unstructured.Unstructured) ([]string, source.Targets, any, bool) {
	rt := &routeView{}
	if !o.DecodeView(u, rt) {
		return nil, source.Targets{}, nil, false
	}
	targets, present := o.TargetAnnotation()
	var names []string
	if i := r.entry(rt); i >= 0 {
		in := rt.Status.Ingress[i]
		field := fmt.Sprintf("status.ingress[%d]", i)
		if !present {
			targets.Add(o, field+".routerCanonicalHostname", in.RouterCanonicalHostname)
		}
		if in.Host != "" {
			if n := o.NormalizeHost(field+".host", in.Host); n != "" {
				names = append(names, n)
			}
		}
	}
	return append(names, o.HostnameAnnotation()...), targets, rt, true
}

// entry returns the index of the status.ingress entry that counts, or -1: the first one whose router
// admitted the route and has a canonical hostname, and (with --openshift-router-name) is that router.
func (r reader) entry(rt *routeView) int {
	for i, in := range rt.Status.Ingress {
		if in.admitted() && in.RouterCanonicalHostname != "" && (r.router == "" || in.RouterName == r.router) {
			return i
		}
	}
	return -1
}
