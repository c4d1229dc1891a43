package traefik

import (
	"context"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// Kind is --source=traefik-proxy. It reads IngressRoutes, IngressRouteTCPs and IngressRouteUDPs in
// --namespace, of traefik.io unless --traefik-disable-new and of traefik.containo.us with
// --traefik-enable-legacy, with get, list and watch; it waits for the CRDs that are missing.
func Kind() source.Kind {
	return source.Kind{
		Name:    "traefik-proxy",
		Cluster: true,
		Labels:  []string{"ingressroute", "ingressroutetcp", "ingressrouteudp"},
		Reads: func(cfg source.Config) []source.Resource {
			var reads []source.Resource
			for _, g := range groups(cfg) {
				for _, rk := range routeKinds {
					reads = append(reads, source.Resource{Group: g, Version: version, Resource: rk.resource, CRD: true})
				}
			}
			return reads
		},
		New: func(ctx context.Context, env source.Env) (source.Source, error) {
			return source.NewCRDSource(ctx, env, crdKinds(env.Config))
		},
		Static: source.CRDStatic(manifestObjects(), crdKinds),
	}
}
