package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/provider"
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
)

// describeProviders lists the provider kinds for --provider's help.
func describeProviders(c *Config) string {
	var out []string
	for _, k := range providerkinds.All(&c.Settings) {
		out = append(out, k.Describe())
	}
	return strings.Join(out, ", ")
}

// validateProvider checks --provider against the table of provider kinds, and every kind's flags.
func (c *Config) validateProvider() []error {
	var errs []error
	supported := strings.Join(providerkinds.Names(), ", ")
	k, known := providerkinds.Lookup(&c.Settings, c.Provider)
	switch {
	case c.Provider == "":
		errs = append(errs, fmt.Errorf("--provider: a provider is required (%s)", supported))
	case !known:
		errs = append(errs, fmt.Errorf("--provider=%s: unknown provider (supported: %s)", c.Provider, supported))
	}
	if known && c.WebhookServer && k.NoWebhookServer != "" {
		var served []string
		for _, other := range providerkinds.All(&c.Settings) {
			if other.NoWebhookServer == "" {
				served = append(served, other.Name)
			}
		}
		errs = append(errs, fmt.Errorf("--webhook-server with --provider=%s %s: name the provider to serve (%s)", c.Provider, k.NoWebhookServer, strings.Join(served, ", ")))
	}
	if known && c.LeaderElect && k.NoLeaderElection != "" {
		errs = append(errs, errors.New("--leader-elect with --provider="+c.Provider+": "+k.NoLeaderElection))
	}
	errs = append(errs, c.validateViewProviders(supported)...)
	for _, other := range providerkinds.All(&c.Settings) {
		if other.Check != nil {
			errs = append(errs, other.Check()...)
		}
	}
	return errs
}

// ProviderKind returns the kind --provider selects, bound to c's settings.
func (c *Config) ProviderKind() (provider.Kind, bool) {
	return providerkinds.Lookup(&c.Settings, c.Provider)
}

// validateViewProviders checks --view-provider=NAME=KIND: a known kind, and what --leader-elect needs
// of it. That NAME is a declared view is checked with the other view flags.
func (c *Config) validateViewProviders(supported string) []error {
	var errs []error
	for _, v := range c.ViewProvider {
		_, kind, ok := strings.Cut(v, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("--view-provider=%s: expected NAME=KIND", v))
			continue
		}
		k, known := providerkinds.Lookup(&c.Settings, kind)
		if !known {
			errs = append(errs, fmt.Errorf("--view-provider=%s: unknown provider %s (supported: %s)", v, kind, supported))
			continue
		}
		if c.LeaderElect && k.NoLeaderElection != "" {
			errs = append(errs, errors.New("--leader-elect with --view-provider="+v+": "+k.NoLeaderElection))
		}
	}
	return errs
}

// ViewProviderKinds returns the kinds --view-provider names (known ones only: Parse refuses others),
// without --provider's.
func (c *Config) ViewProviderKinds() []provider.Kind {
	var out []provider.Kind
	for _, v := range c.ViewProvider {
		_, kind, _ := strings.Cut(v, "=")
		if k, ok := providerkinds.Lookup(&c.Settings, kind); ok {
			out = append(out, k)
		}
	}
	return out
}
