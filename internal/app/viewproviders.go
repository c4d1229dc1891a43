package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/config"
	"github.com/zonekeeper/zonekeeper/internal/provider"
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
	"github.com/zonekeeper/zonekeeper/internal/source"
	"github.com/zonekeeper/zonekeeper/internal/view"
)

// viewProvider is the provider kind publishing one view and the constructor of its instance.
type viewProvider struct {
	kind provider.Kind
	new  func(provider.View) (provider.Provider, error)
}

// startViewProviders starts each provider kind the views use once, with the views it publishes
// (--view-provider, else --provider): the internal view in CoreDNS and the external one in Cloudflare
// is two kinds with one view each. It returns each view's kind and constructor, in specs order.
func startViewProviders(ctx context.Context, cfg config.Config, getenv func(string) string, specs []*view.Spec, log *slog.Logger, metrics any) ([]viewProvider, error) {
	kinds, err := viewKinds(&cfg, specs)
	if err != nil {
		return nil, err
	}
	if err := checkViewOptionKinds(&cfg, specs, kinds); err != nil {
		return nil, err
	}
	out := make([]viewProvider, len(specs))
	started := map[string]bool{}
	for i, k := range kinds {
		if started[k.Name] {
			continue
		}
		started[k.Name] = true
		var group []*view.Spec
		var names []string
		fromFlag := false
		for j, s := range specs {
			if kinds[j].Name == k.Name {
				group = append(group, s)
				if s != nil {
					names = append(names, s.Name)
					fromFlag = fromFlag || s.Provider != ""
				}
			}
		}
		if k.NoViews != "" && len(names) > 1 {
			return nil, noViewsError(cfg, k, names, fromFlag)
		}
		env := providerEnv(cfg, getenv, group, log)
		env.Metrics = metrics
		newProvider, err := k.New(ctx, env)
		if err != nil {
			return nil, err
		}
		for j := i; j < len(specs); j++ {
			if kinds[j].Name == k.Name {
				out[j] = viewProvider{kind: k, new: newProvider}
			}
		}
	}
	return out, nil
}

// viewKinds resolves each view's provider kind: its --view-provider, else --provider.
func viewKinds(cfg *config.Config, specs []*view.Spec) ([]provider.Kind, error) {
	def, ok := cfg.ProviderKind()
	if !ok {
		return nil, fmt.Errorf("--provider=%s: unknown provider", cfg.Provider)
	}
	kinds := make([]provider.Kind, len(specs))
	for i, s := range specs {
		kinds[i] = def
		if s == nil || s.Provider == "" {
			continue
		}
		k, ok := providerkinds.Lookup(&cfg.Settings, s.Provider)
		if !ok {
			return nil, fmt.Errorf("--view-provider=%s=%s: unknown provider (supported: %s)", s.Name, s.Provider, strings.Join(providerkinds.Names(), ", "))
		}
		kinds[i] = k
	}
	return kinds, nil
}

// checkViewOptionKinds refuses a kind's per-view option given for a view another kind publishes
// (--view-coredns-prefix for the view in Cloudflare), which would otherwise be ignored.
func checkViewOptionKinds(cfg *config.Config, specs []*view.Spec, kinds []provider.Kind) error {
	kindOf := map[string]provider.Kind{}
	var names []string
	for i, s := range specs {
		if s != nil {
			kindOf[s.Name] = kinds[i]
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	// --view-subnets is read by the built-in server alone; elsewhere it would be dropped without a word.
	for i, s := range specs {
		if s != nil && len(s.Subnets) > 0 && kinds[i].Name != "builtin" {
			return fmt.Errorf("--view-subnets=%s=%s: view %s is published by the %s provider; only the built-in server (--provider=builtin) chooses a view by the client's address",
				s.Name, joinPrefixes(s.Subnets), s.Name, kinds[i].Name)
		}
	}
	for _, k := range providerkinds.All(&cfg.Settings) {
		for _, o := range k.ViewOptions {
			byView, err := o.ByView(names)
			if err != nil {
				return err
			}
			for name, value := range byView {
				if other := kindOf[name]; other.Name != k.Name {
					return fmt.Errorf("--%s=%s=%s: view %s is published by the %s provider, which does not read this %s setting (set --view-provider=%s=%s, or drop the flag)",
						o.Flag, name, value, name, other.Name, k.Name, name, k.Name)
				}
			}
		}
	}
	return nil
}

// noViewsError says that several views use a kind that holds one view only, and what to do.
func noViewsError(cfg config.Config, k provider.Kind, names []string, fromFlag bool) error {
	list := strings.Join(names, " and ")
	if !fromFlag {
		return fmt.Errorf("--provider=%s: %s (views %s; give all but one of them another provider with --view-provider=NAME=KIND)", cfg.Provider, k.NoViews, list)
	}
	return fmt.Errorf("--view-provider: views %s are all published by the %s provider, which holds one view: %s", list, k.Name, k.NoViews)
}

// joinPrefixes writes subnets as --view-subnets takes them.
func joinPrefixes(ps []netip.Prefix) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return strings.Join(out, ",")
}

// providerProperties tells the sources which provider kinds read which provider-specific properties:
// every view's kind is configured. Nil when the kinds cannot be resolved (build then fails on them).
func providerProperties(cfg config.Config) *source.PropertyReaders {
	specs, err := viewSpecs(cfg)
	if err != nil {
		return nil
	}
	kinds, err := viewKinds(&cfg, specs)
	if err != nil {
		return nil
	}
	var configured []string
	for _, k := range kinds {
		if !slices.Contains(configured, k.Name) {
			configured = append(configured, k.Name)
		}
	}
	all := providerkinds.All(&cfg.Settings)
	return &source.PropertyReaders{Configured: configured, ReadBy: func(name string) []string {
		var out []string
		for _, k := range all {
			if k.ReadsProperty(name) {
				out = append(out, k.Name)
			}
		}
		return out
	}}
}
