// Package traefik is the traefik-proxy source: Traefik IngressRoutes, IngressRouteTCPs and
// IngressRouteUDPs of the traefik.io API group (unless --traefik-disable-new) and of the legacy
// traefik.containo.us group (with --traefik-enable-legacy), read through the dynamic client.
//
// The semantics are external-dns v0.21.0's: the names are the hostname annotation and the hosts of the
// routes' Host, HostHeader and HostSNI matchers (rule.go; UDP routes have no rules), the targets only the
// target annotation: Traefik routes carry no address of their own.
package traefik

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/source"
)

// The API groups, their one version, and the route kinds.
const (
	Group       = "traefik.io"
	LegacyGroup = "traefik.containo.us"
	version     = "v1alpha1"
)

// routeKind is one of the three kinds of route.
type routeKind struct {
	kind, resource string
	// rules: the kind has spec.routes[].match (HTTP and TCP; UDP routes match no host).
	rules bool
}

var routeKinds = []routeKind{
	{kind: "IngressRoute", resource: "ingressroutes", rules: true},
	{kind: "IngressRouteTCP", resource: "ingressroutetcps", rules: true},
	{kind: "IngressRouteUDP", resource: "ingressrouteudps"},
}

// label is the kind of the resource label ("ingressroute/ns/name"), as external-dns writes it.
func (k routeKind) label() string {
	switch k.kind {
	case "IngressRouteTCP":
		return "ingressroutetcp"
	case "IngressRouteUDP":
		return "ingressrouteudp"
	}
	return "ingressroute"
}

// watched is one kind in one group, read from the cache.
type watched struct {
	k     routeKind
	gvk   schema.GroupVersionKind
	index cache.Indexer
}

// groups returns the API groups cfg reads, new first.
func groups(cfg source.Config) []string {
	var out []string
	if !cfg.TraefikDisableNew {
		out = append(out, Group)
	}
	if cfg.TraefikEnableLegacy {
		out = append(out, LegacyGroup)
	}
	return out
}

// Source publishes Traefik routes.
type Source struct {
	k        *source.Kernel
	watched  []watched // kind by kind (IngressRoute, TCP, UDP), new group first
	handlers source.Handlers
}

var (
	_ source.Source       = (*Source)(nil)
	_ source.ObjectLookup = (*Source)(nil)
)

func newSource(ctx context.Context, env source.Env) (*Source, error) {
	k, err := source.NewKernel(env.Config)
	if err != nil {
		return nil, err
	}
	s := &Source{k: k}
	var gvrs []schema.GroupVersionResource
	for _, rk := range routeKinds {
		for _, g := range groups(env.Config) {
			gvrs = append(gvrs, schema.GroupVersionResource{Group: g, Version: version, Resource: rk.resource})
			s.watched = append(s.watched, watched{k: rk, gvk: schema.GroupVersionKind{Group: g, Version: version, Kind: rk.kind}})
		}
	}
	if len(gvrs) == 0 {
		return nil, fmt.Errorf("--traefik-disable-new without --traefik-enable-legacy: no API group to read")
	}
	idxs, err := source.WatchDynamic(ctx, env.Dynamic, env.Config.Namespace, &s.handlers, gvrs...)
	if err != nil {
		return nil, err
	}
	for i := range s.watched {
		s.watched[i].index = idxs[i]
	}
	return s, nil
}

// AddEventHandler registers fn for every change of a route.
func (s *Source) AddEventHandler(fn func()) { s.handlers.Add(fn) }

// LookupObject finds a route by API kind ("IngressRouteTCP") or resource label kind
// ("ingressroutetcp"), in the traefik.io group first, for Events.
func (s *Source) LookupObject(kind, namespace, name string) (runtime.Object, bool) {
	var gvks []schema.GroupVersionKind
	var idxs []cache.Indexer
	for _, w := range s.watched {
		if source.KindMatches(kind, w.k.kind, w.k.label()) {
			gvks, idxs = append(gvks, w.gvk), append(idxs, w.index)
		}
	}
	return source.LookupDynamic(namespace, name, gvks, idxs)
}

// routeView is what is read of a route of any kind; the names are those of Traefik's Go types, so
// that --fqdn-template reads {{.Name}}, {{.Namespace}}, {{.Spec.Routes}} as it would on them.
type routeView struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Routes []struct {
			Match string `json:"match"`
		} `json:"routes"`
	} `json:"spec"`
}

// Endpoints returns the records of every admitted route: IngressRoutes, then IngressRouteTCPs, then
// IngressRouteUDPs, each in namespace/name order, merged as external-dns merges them.
func (s *Source) Endpoints(ctx context.Context) (source.Result, error) {
	var problems source.Problems
	var eps []*endpoint.Endpoint
	for _, w := range s.watched {
		for _, u := range source.SortedObjects(w.index) {
			if err := ctx.Err(); err != nil {
				return source.Result{}, err
			}
			eps = append(eps, s.routeEndpoints(w, u, &problems)...)
		}
	}
	return source.Result{Endpoints: source.MergeEndpoints(eps), Problems: problems.Items()}, nil
}
