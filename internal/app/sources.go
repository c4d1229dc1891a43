package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/source/kinds"
)

// builtSources is the combined source of the pipeline and what other stages need of it.
type builtSources struct {
	source source.Source
	// deferred are the cluster kinds, each able to wait for its CRD or RBAC.
	deferred []*source.Deferred
	// dnsEndpoints returns the running DNSEndpoint source (nil when --source=crd is not set), for the
	// status writer.
	dnsEndpoints func() *source.DNSEndpointSource
}

// buildSources builds the sources from the table of source kinds. A kind that reads the cluster
// starts through source.Deferred: when its CRD is not installed or RBAC denies what it reads, the
// other sources still publish, its records are kept, readiness and zonekeeper_source_unavailable say
// why, and it starts by itself once the cause is fixed (under --once it is tried once, and the run
// fails after publishing the rest).
func buildSources(ctx context.Context, cfg config.Config, kube kubeAccess, log *slog.Logger, obs observability) (builtSources, error) {
	env := source.Env{Kube: kube.client, Dynamic: kube.dynamic, REST: kube.rest, Config: sourceConfig(cfg), Manifest: cfg.Manifest}
	if _, err := source.NewKernel(env.Config); err != nil {
		return builtSources{}, err // a bad flag fails at once, not as a waiting source
	}
	onState := func(kind string, err error) {
		if obs.health != nil {
			obs.health.SourceState(kind, err)
		}
		if obs.metrics != nil {
			obs.metrics.SourceState(kind, err)
		}
	}
	var out builtSources
	var sources []source.Source
	var access *source.AccessChecker
	if kube.client != nil {
		access = source.NewAccessChecker(kube.client)
	}
	for _, name := range cfg.Sources {
		kind, ok := kinds.Lookup(name)
		if !ok {
			return builtSources{}, fmt.Errorf("--source=%s: unknown source", name)
		}
		if !kind.Cluster {
			s, err := kind.New(ctx, env)
			if err != nil {
				return builtSources{}, fmt.Errorf("--source=%s: %w", name, err)
			}
			sources = append(sources, s)
			continue
		}
		d := source.StartDeferred(ctx, kind, env, source.DeferredOptions{NoRetry: cfg.Once, Log: log, OnState: onState, Access: access})
		if name == "crd" {
			out.dnsEndpoints = func() *source.DNSEndpointSource {
				s, _ := d.Inner().(*source.DNSEndpointSource)
				return s
			}
		}
		out.deferred = append(out.deferred, d)
		sources = append(sources, d)
	}
	if why := ptrWithoutReverseZone(cfg); why != "" {
		log.Warn("PTR records cannot be made", "reason", why)
	}
	if len(sources) == 1 {
		out.source = source.PostProcess(sources[0], postProcessConfig(cfg))
	} else {
		out.source = source.PostProcess(source.NewMulti(sources...), postProcessConfig(cfg))
	}
	return out, nil
}
