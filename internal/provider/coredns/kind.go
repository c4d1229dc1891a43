package coredns

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/flagvalue"
	"github.com/zonekeeper/zonekeeper/internal/provider"
)

// CoreDNSFlags are --provider=coredns's settings. The etcd connection comes from the ETCD_*
// environment, as in external-dns (ConfigFromEnv).
type CoreDNSFlags struct {
	CoreDNSPrefix string
	// ViewCoreDNSPrefix is --view-coredns-prefix=VIEW=/PREFIX/: each view writes under its own prefix.
	ViewCoreDNSPrefix []string
}

// Kind is --provider=coredns (or skydns, external-dns's old name).
func (s *CoreDNSFlags) Kind() provider.Kind {
	return provider.Kind{
		Name: "coredns", Aliases: []string{"skydns"}, Properties: []string{"coredns/"},
		Defaults: func() { *s = CoreDNSFlags{CoreDNSPrefix: DefaultPrefix} },
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&s.CoreDNSPrefix, "coredns-prefix", s.CoreDNSPrefix, "etcd key prefix the coredns provider writes under")
			flagvalue.BindList(fs, &s.ViewCoreDNSPrefix, "view-coredns-prefix", "NAME=/PREFIX/: etcd prefix the coredns provider writes the view under")
		},
		ViewOptions: []provider.ViewOption{s.viewPrefix()},
		New:         s.start,
	}
}

func (s *CoreDNSFlags) viewPrefix() provider.ViewOption {
	return provider.ViewOption{Flag: "view-coredns-prefix", Values: &s.ViewCoreDNSPrefix, Check: func(v string) error {
		if !strings.HasPrefix(v, "/") {
			return errors.New("an etcd prefix starts with /")
		}
		return nil
	}}
}

// start gives each view its etcd prefix: --view-coredns-prefix, else --coredns-prefix; two views
// never share one.
func (s *CoreDNSFlags) start(_ context.Context, env provider.Env) (func(provider.View) (provider.Provider, error), error) {
	names := make([]string, len(env.Views))
	for i, v := range env.Views {
		names[i] = v.Name
	}
	byView, err := s.viewPrefix().ByView(names)
	if err != nil {
		return nil, err
	}
	prefix := func(view string) string {
		if p, ok := byView[view]; ok && view != "" {
			return p
		}
		return s.CoreDNSPrefix
	}
	owner := map[string]string{}
	for _, v := range env.Views {
		if v.Name == "" {
			continue
		}
		p := prefix(v.Name)
		if other, dup := owner[p]; dup {
			return nil, fmt.Errorf("views %s and %s both write etcd prefix %s: give each view its own with --view-coredns-prefix", other, v.Name, p)
		}
		owner[p] = v.Name
	}
	return func(v provider.View) (provider.Provider, error) {
		ccfg, err := ConfigFromEnv()
		if err != nil {
			return nil, fmt.Errorf("--provider=coredns: %w", err)
		}
		ccfg.Prefix = prefix(v.Name)
		ccfg.DomainFilter = env.DomainFilter
		p, err := New(ccfg)
		if err != nil {
			return nil, fmt.Errorf("--provider=coredns: %w", err)
		}
		return p, nil
	}, nil
}
