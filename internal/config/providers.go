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
