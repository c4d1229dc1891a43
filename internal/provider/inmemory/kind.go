package inmemory

import (
	"context"
	"flag"

	"github.com/zonekeeper/zonekeeper/internal/flagvalue"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// InMemoryFlags are --provider=inmemory's settings.
type InMemoryFlags struct {
	InMemoryZones []string
}

// Kind is --provider=inmemory: zones in process memory, for the quickstart and `zonekeeper plan`
// experiments. Each view's instance has its own zones.
func (s *InMemoryFlags) Kind() provider.Kind {
	return provider.Kind{
		Name:     "inmemory",
		Defaults: func() { *s = InMemoryFlags{} },
		Flags: func(fs *flag.FlagSet) {
			flagvalue.BindList(fs, &s.InMemoryZones, "inmemory-zone", "zone served by the inmemory provider (repeatable)")
		},
		Zones:       func() []string { return s.InMemoryZones },
		PrintsZones: true,
		New: func(context.Context, provider.Env) (func(provider.View) (provider.Provider, error), error) {
			return func(provider.View) (provider.Provider, error) { return New(s.InMemoryZones...), nil }, nil
		},
	}
}
