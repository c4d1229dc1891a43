package view

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
	"github.com/zonekeeper/zonekeeper/internal/plan"
)

// Flags are the per-view settings as given on the command line: --view=NAME declares a view, and each
// other flag is repeatable with a NAME=VALUE argument (--view-ttl=external=900), which keeps every
// setting a plain list in Helm values and in EXTERNAL_DNS_* variables.
type Flags struct {
	Names          []string // --view
	Targets        []string // --view-targets=NAME=reported|public
	TTL            []string // --view-ttl=NAME=SECONDS
	DomainFilter   []string // --view-domain-filter=NAME=DOMAIN (repeatable per view)
	ExcludeDomains []string // --view-exclude-domains=NAME=DOMAIN (repeatable per view)
	CoreDNSPrefix  []string // --view-coredns-prefix=NAME=/PREFIX/
	Subnets        []string // --view-subnets=NAME=CIDR[,CIDR...] (built-in server: clients of the view)
	Provider       []string // --view-provider=NAME=KIND (the caller checks that KIND is a provider kind)
}

// Specs turns the flags into view specs, in --view order. Each error names the flag and the value.
func (f Flags) Specs() ([]Spec, error) {
	specs := make([]Spec, 0, len(f.Names))
	index := map[string]int{}
	for _, n := range f.Names {
		n = strings.TrimSpace(n)
		if n == "" || strings.ContainsAny(n, "=/ ") {
			return nil, fmt.Errorf("--view=%q: a view name is a plain word (internal, external)", n)
		}
		if _, dup := index[n]; dup {
			return nil, fmt.Errorf("--view=%s: declared twice", n)
		}
		index[n] = len(specs)
		specs = append(specs, Spec{Name: n, Targets: TargetsAsReported})
	}
	include := map[string][]string{}
	exclude := map[string][]string{}
	each := func(flag string, values []string, set func(*Spec, string) error) error {
		for _, v := range values {
			name, value, ok := strings.Cut(v, "=")
			if !ok {
				return fmt.Errorf("--%s=%s: expected NAME=VALUE", flag, v)
			}
			i, known := index[name]
			if !known {
				return fmt.Errorf("--%s=%s: no --view=%s declared", flag, v, name)
			}
			if err := set(&specs[i], value); err != nil {
				return fmt.Errorf("--%s=%s: %v", flag, v, err)
			}
		}
		return nil
	}
	err := firstError(
		each("view-targets", f.Targets, func(s *Spec, v string) error {
			switch TargetMode(v) {
			case TargetsAsReported, TargetsPublic:
				s.Targets = TargetMode(v)
				return nil
			}
			return fmt.Errorf("targets must be %q or %q", TargetsAsReported, TargetsPublic)
		}),
		each("view-ttl", f.TTL, func(s *Spec, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > endpoint.MaxTTL {
				return fmt.Errorf("a TTL is a number of seconds from 1 to %d", endpoint.MaxTTL)
			}
			s.TTL = endpoint.TTL(n)
			return nil
		}),
		each("view-domain-filter", f.DomainFilter, func(s *Spec, v string) error {
			include[s.Name] = append(include[s.Name], v)
			return nil
		}),
		each("view-exclude-domains", f.ExcludeDomains, func(s *Spec, v string) error {
			exclude[s.Name] = append(exclude[s.Name], v)
			return nil
		}),
		each("view-coredns-prefix", f.CoreDNSPrefix, func(s *Spec, v string) error {
			if !strings.HasPrefix(v, "/") {
				return fmt.Errorf("an etcd prefix starts with /")
			}
			s.CoreDNSPrefix = v
			return nil
		}),
		each("view-provider", f.Provider, func(s *Spec, v string) error {
			if v == "" {
				return fmt.Errorf("a provider kind is required")
			}
			s.Provider = v
			return nil
		}),
		each("view-subnets", f.Subnets, func(s *Spec, v string) error {
			for _, c := range strings.Split(v, ",") {
				p, err := netip.ParsePrefix(strings.TrimSpace(c))
				if err != nil {
					return fmt.Errorf("%q is not a CIDR prefix", c)
				}
				s.Subnets = append(s.Subnets, p.Masked())
			}
			return nil
		}),
	)
	if err != nil {
		return nil, err
	}
	for i := range specs {
		df, err := plan.NewDomainFilter(include[specs[i].Name], exclude[specs[i].Name], "", "")
		if err != nil {
			return nil, fmt.Errorf("view %s: %v", specs[i].Name, err)
		}
		specs[i].Domains = df
	}
	return specs, nil
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
