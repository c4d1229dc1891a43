package provider

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
)

// Kind is one value of --provider: its names, its flags, its per-view options and its constructor.
// Each provider declares its kind in its own directory (kind.go, on the struct of its settings);
// internal/provider/kinds holds the one table of kinds, which flag parsing, validation, --help, the
// app and the docs tests read. What the backend can hold is declared by Provider.Capabilities.
type Kind struct {
	// Name is the --provider value; Aliases select the same kind (coredns: skydns).
	Name    string
	Aliases []string
	// Summary describes the kind in --provider's help ("Route 53"); empty for none.
	Summary string
	// Flags binds the kind's flags (external-dns's names, defaults and meaning where it has the flag)
	// to its settings. A flag's default is the value the settings hold: see Defaults.
	Flags func(fs *flag.FlagSet)
	// Defaults sets the kind's settings to their defaults.
	Defaults func()
	// Check validates the kind's flags, whether or not the kind is selected: a flag that is given is
	// checked. Each error names the flag. Optional.
	Check func() []error
	// ViewOptions are the kind's per-view settings (--view-coredns-prefix=VIEW=VALUE), bound by Flags.
	ViewOptions []ViewOption
	// Zones returns the zones the kind's flags name (--rfc2136-zone): the mass-change guard counts
	// changes by them, whichever kind is selected. Optional.
	Zones func() []string
	// Properties are the provider-specific properties the kind's provider reads, as ReadsProperty
	// matches them: "aws/" is every property of that namespace, "*/cloudflare-proxied" that name under
	// any prefix (the legacy full annotation keys), "alias" that un-namespaced property. Sources copy
	// every aws-, coredns-, webhook-, scw-, azure- and cloudflare- annotation to a property, and the
	// alias annotation to alias, whichever kind runs; each view's provider sees only the properties its
	// kind reads (OwnPropertiesOnly), and a property no configured kind reads is a problem on its
	// object. external-dns's post-processor keeps alias for every provider; one that does not read it
	// lists the record without it and rewrites it, with its ownership TXT, after every listing.
	Properties []string

	// NoViews, when set, says why the kind cannot publish --view views.
	NoViews string
	// NoLeaderElection, when set, says why --leader-elect is refused with the kind.
	NoLeaderElection string
	// NoPlan, when set, says why `zonekeeper plan` cannot run with the kind.
	NoPlan string
	// NoWebhookServer, when set, says why `zonekeeper webhook` cannot serve the kind.
	NoWebhookServer string
	// PrintsZones: the records live in this process only, so a --once run prints them when it ends.
	PrintsZones bool

	// New starts what the kind's provider instances share (a DNS server, a rate limiter, counters)
	// and returns the constructor of each view's instance. Its errors name the flag or the provider.
	New func(ctx context.Context, env Env) (func(View) (Provider, error), error)
}

// Settings are the settings of one kind, bound to its flags: internal/provider/kinds embeds each
// kind's in one struct (which config.Config embeds, so cfg.AWSRegion reads as any other setting), and
// each returns its kind, bound to itself.
type Settings interface {
	Kind() Kind
}

// ReadsProperty reports whether the kind's provider reads the provider-specific property name (see
// ReadsProperty).
func (k Kind) ReadsProperty(name string) bool { return ReadsProperty(k.Properties, name) }

// SharedProperty reports whether name is a provider-specific property without a namespace that some
// providers read: alias (Route 53, and a webhook's server). Like a namespaced one, it is read only by
// the kinds that declare it. Any other name without "/" is no provider's (record-type, which the PTR
// stage takes off before any provider sees it) and passes every kind.
func SharedProperty(name string) bool { return name == AliasProperty }

// AliasProperty is the alias annotation's property: "true", "false", "A" or "AAAA".
const AliasProperty = "alias"

// ReadsProperty reports whether the patterns (Kind.Properties) take the property name: a pattern
// ending in "/" takes the names it prefixes, "*/x" a name whose last "/"-separated part is x, any
// other pattern that name itself. A name without "/" that is not a SharedProperty is taken by any
// patterns.
func ReadsProperty(patterns []string, name string) bool {
	i := strings.LastIndexByte(name, '/')
	if i < 0 && !SharedProperty(name) {
		return true
	}
	for _, p := range patterns {
		if last, ok := strings.CutPrefix(p, "*/"); ok {
			if i >= 0 && name[i+1:] == last {
				return true
			}
		} else if strings.HasSuffix(p, "/") {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if p == name {
			return true
		}
	}
	return false
}

// Names returns the kind's name and its aliases.
func (k Kind) Names() []string { return append([]string{k.Name}, k.Aliases...) }

// Is reports whether name selects the kind.
func (k Kind) Is(name string) bool {
	for _, n := range k.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// Describe is the kind as --provider's help lists it: "coredns (alias skydns)".
func (k Kind) Describe() string {
	var notes []string
	if k.Summary != "" {
		notes = append(notes, k.Summary)
	}
	for _, a := range k.Aliases {
		notes = append(notes, "alias "+a)
	}
	if len(notes) == 0 {
		return k.Name
	}
	return k.Name + " (" + strings.Join(notes, "; ") + ")"
}

// Env is what a kind's constructor gets besides its own settings.
type Env struct {
	Log *slog.Logger
	// Getenv reads the process environment (secrets such as EXTERNAL_DNS_RFC2136_TSIG_SECRET).
	Getenv func(string) string
	// DomainFilter is --domain-filter and ZoneIDFilter --zone-id-filter: the zones to manage.
	DomainFilter []string
	ZoneIDFilter []string
	// TLS is --tls-ca, --tls-client-cert and --tls-client-cert-key, for providers that speak TLS.
	TLS TLSFiles
	// Views are the views the instances publish, in --view order; one zero View without --view.
	Views []View
	// Metrics is the process's metrics registry, or nil; a kind asserts the interface it reports to.
	Metrics any
}

// TLSFiles are the files of a TLS client.
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
}

// View is the view one provider instance publishes: the zero View when there are no views.
type View struct {
	// Name is the --view name, "" without views.
	Name string
	// Subnets are the clients the view answers (--view-subnets), for a provider that serves DNS.
	Subnets []netip.Prefix
}

// ViewOption is a per-view setting of a kind, given as --FLAG=VIEW=VALUE (repeatable).
type ViewOption struct {
	Flag string
	// Values are the VIEW=VALUE values given; the kind's Flags binds them.
	Values *[]string
	// Check validates one value; optional.
	Check func(value string) error
}

// ByView returns the option's value for each view that has one (the last given wins), checking that
// each value names a declared view. Each error names the flag and the value.
func (o ViewOption) ByView(views []string) (map[string]string, error) {
	out := map[string]string{}
	if o.Values == nil {
		return out, nil
	}
	for _, v := range *o.Values {
		name, value, ok := strings.Cut(v, "=")
		if !ok {
			return nil, fmt.Errorf("--%s=%s: expected NAME=VALUE", o.Flag, v)
		}
		declared := false
		for _, n := range views {
			declared = declared || n == name
		}
		if !declared {
			return nil, fmt.Errorf("--%s=%s: no --view=%s declared", o.Flag, v, name)
		}
		if o.Check != nil {
			if err := o.Check(value); err != nil {
				return nil, fmt.Errorf("--%s=%s: %v", o.Flag, v, err)
			}
		}
		out[name] = value
	}
	return out, nil
}
