// Package traefik is the traefik-proxy source: Traefik IngressRoutes, IngressRouteTCPs and
// IngressRouteUDPs of the traefik.io API group (unless --traefik-disable-new) and of the legacy
// traefik.containo.us group (with --traefik-enable-legacy), read through the dynamic client.
//
// The semantics are external-dns v0.21.0's: the names are the hostname annotation and the hosts of the
// routes' Host, HostHeader and HostSNI matchers (rule.go; UDP routes have no rules), the targets only the
// target annotation: Traefik routes carry no address of their own.
package traefik

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// The API groups and their one version.
const (
	Group       = "traefik.io"
	LegacyGroup = "traefik.containo.us"
	version     = "v1alpha1"
)

// routeKind is one of the three kinds of route.
type routeKind struct {
	kind, resource, label string
	// rules: the kind has spec.routes[].match (HTTP and TCP; UDP routes match no host).
	rules bool
}

var routeKinds = []routeKind{
	{kind: "IngressRoute", resource: "ingressroutes", label: "ingressroute", rules: true},
	{kind: "IngressRouteTCP", resource: "ingressroutetcps", label: "ingressroutetcp", rules: true},
	{kind: "IngressRouteUDP", resource: "ingressrouteudps", label: "ingressrouteudp"},
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

// crdKinds are the kinds cfg reads, IngressRoutes first, each in the traefik.io group before the
// legacy one, as external-dns orders them.
func crdKinds(cfg source.Config) []source.CRDKind {
	var kinds []source.CRDKind
	for _, rk := range routeKinds {
		for _, g := range groups(cfg) {
			kinds = append(kinds, source.CRDKind{
				GVR:  schema.GroupVersionResource{Group: g, Version: version, Resource: rk.resource},
				Kind: rk.kind, Label: rk.label, Read: rk.read, TargetTemplates: true,
			})
		}
	}
	return kinds
}

// manifestObjects are the object kinds zonekeeper plan and --source=manifest read for this kind.
func manifestObjects() []schema.GroupKind {
	var out []schema.GroupKind
	for _, g := range []string{Group, LegacyGroup} {
		for _, rk := range routeKinds {
			out = append(out, schema.GroupKind{Group: g, Kind: rk.kind})
		}
	}
	return out
}
