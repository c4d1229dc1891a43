package source

import (
	"context"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/zonekeeper/zonekeeper/internal/kube"
)

// Kind is one value of --source: its name, what it reads (the RBAC rules it needs, checked before it
// starts), and its constructor. internal/source/kinds holds the one table of kinds; a new kind adds
// one line there and lives in its own files.
type Kind struct {
	Name string
	// Cluster is true when the kind reads the Kubernetes API (every kind but manifest).
	Cluster bool
	// Reads lists the resources the kind reads with this configuration (get, list, watch).
	Reads func(Config) []Resource
	// New builds the source. It is called only once every resource in Reads is served and readable
	// (Optional ones excepted: those denied are in env.Config.SkipResources).
	New func(ctx context.Context, env Env) (Source, error)
	// Static, when set, lets --source=manifest (and zonekeeper plan) read this kind's objects from
	// files.
	Static *StaticKind
	// Labels are the kinds of the resource labels its endpoints carry ("httproute" for
	// "httproute/ns/name"); default: Name.
	Labels []string
}

// ResourceLabelKinds is Labels, or the kind's name.
func (k Kind) ResourceLabelKinds() []string {
	if len(k.Labels) > 0 {
		return k.Labels
	}
	return []string{k.Name}
}

// Resource is one API resource a kind reads with get, list and watch.
type Resource struct {
	Group, Version, Resource string
	// ClusterScoped resources (nodes, namespaces) need a ClusterRole even in a namespaced install.
	ClusterScoped bool
	// CRD marks a resource served by a CustomResourceDefinition that may not be installed: the source
	// then waits for it instead of failing (see Deferred).
	CRD bool
	// Optional says what is lost without the resource ("headless Services are not published"): when
	// RBAC denies it the kind runs without it instead of not at all.
	Optional string
}

// String names the resource as RBAC does: "ingresses.networking.k8s.io", "services".
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// Env is what a kind's constructor gets.
type Env struct {
	Kube    *kube.Client
	Dynamic dynamic.Interface
	// REST is the client configuration, for kinds with their own typed clientset (Gateway API).
	REST   *rest.Config
	Config Config
	// Manifest is --manifest, for the manifest kind.
	Manifest string
}

// Core kinds, implemented in this package.

// ServiceKind is --source=service.
func ServiceKind() Kind {
	return Kind{
		Name: "service", Cluster: true,
		Reads: func(cfg Config) []Resource {
			reads := []Resource{{Version: "v1", Resource: "services"}}
			c, err := compile(cfg)
			if err != nil {
				return reads
			}
			nodes, pods, slices := c.serviceInformersNeeded()
			if nodes {
				reads = append(reads, Resource{Version: "v1", Resource: "nodes", ClusterScoped: true})
			}
			if pods {
				reads = append(reads, Resource{Version: "v1", Resource: "pods"})
			}
			if slices {
				reads = append(reads, Resource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices",
					Optional: "headless Services are not published, and their records are kept as they are"})
			}
			return reads
		},
		New: func(ctx context.Context, env Env) (Source, error) { return NewService(ctx, env.Kube, env.Config) },
	}
}

// IngressKind is --source=ingress.
func IngressKind() Kind {
	return Kind{
		Name: "ingress", Cluster: true,
		Reads: func(Config) []Resource {
			return []Resource{{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}}
		},
		New: func(ctx context.Context, env Env) (Source, error) { return NewIngress(ctx, env.Kube, env.Config) },
	}
}

// DNSEndpointKind is --source=crd.
func DNSEndpointKind() Kind {
	gvr := DNSEndpointResource()
	return Kind{
		Name: "crd", Cluster: true,
		Reads: func(Config) []Resource {
			return []Resource{{Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource}}
		},
		New: func(ctx context.Context, env Env) (Source, error) {
			return NewDNSEndpoint(ctx, env.Kube, env.Dynamic, env.Config)
		},
	}
}

// ManifestKind is --source=manifest: objects from files, no cluster. statics returns the kinds whose
// objects manifests may hold besides Services and Ingresses (those with a Static).
func ManifestKind(statics func() []Kind) Kind {
	return Kind{
		Name:  "manifest",
		Reads: func(Config) []Resource { return nil },
		New: func(_ context.Context, env Env) (Source, error) {
			return NewManifestWith(env.Manifest, env.Config, statics())
		},
	}
}
