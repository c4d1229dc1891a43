package config

import (
	"flag"
	"io"
	"sort"
	"strings"

	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
	"github.com/zonekeeper/zonekeeper/internal/source/kinds"
)

// The help groups the flags by concern. A flag's group comes, in this order of precedence, from:
// the table of provider kinds (each kind binds its own flags, so they form its group), the refused and
// the accepted-but-not-applied external-dns flags (compat.go, not_applied.go), the exact names of
// helpGroups, and last the longest matching name prefix: those of helpGroups and those derived from
// the table of source kinds ("gateway-" from gateway-httproute). A new flag that none of these place
// lands in no group: TestEveryFlagIsInExactlyOneHelpGroup fails and names it.

// FlagGroup is one section of the help.
type FlagGroup struct {
	// Name selects the group in `zonekeeper flags NAME`.
	Name  string
	Title string
	// Flags are the group's flags, sorted by name.
	Flags []*flag.Flag
	// Short are the flags `zonekeeper --help` shows, in this order; the rest are in --help-all.
	Short []string
	// Kind is true for the group of one provider kind: --help gives it one line, Summary.
	Kind    bool
	Summary string
}

// Group names that are not a provider kind's.
const (
	groupNotApplied = "not-applied"
	groupRefused    = "refused"
	// groupUnplaced collects flags no rule places; it must stay empty (see the test).
	groupUnplaced = "unplaced"
)

// helpGroup is the part of a group the table below declares: its exact names and name prefixes.
type helpGroup struct {
	name, title string
	exact       []string
	prefixes    []string
	short       []string
}

// helpGroups are the groups of the flags that no provider kind binds, in the order --help shows them;
// the provider kinds' groups follow "provider".
func helpGroups() []helpGroup {
	return []helpGroup{
		{name: "general", title: "General flags",
			exact: []string{"once", "dry-run", "interval", "min-event-sync-interval", "provider-cache-time", "log-level", "log-format", "version"},
			short: []string{"once", "dry-run", "interval", "log-level", "log-format"}},
		{name: "kubernetes", title: "Kubernetes API flags",
			exact: []string{"kubeconfig", "master", "server"}, prefixes: []string{"kube-"},
			short: []string{"kubeconfig", "master"}},
		{name: "sources", title: "Source flags (what is published)",
			exact: []string{"source", "manifest", "namespace", "annotation-prefix", "enable-legacy-annotation-prefix",
				"label-filter", "annotation-filter", "fqdn-template", "target-template", "fqdn-target-template", "combine-fqdn-annotation", "ignore-hostname-annotation",
				"ignore-ingress-tls-spec", "ignore-ingress-rules-spec", "ignore-non-host-network-pods",
				"publish-internal-services", "publish-host-ip", "always-publish-not-ready-addresses",
				"exclude-unschedulable", "expose-internal-ipv6", "default-targets", "force-default-targets",
				"create-ptr", "min-ttl"},
			prefixes: sourceKindPrefixes(),
			short: []string{"source", "namespace", "label-filter", "annotation-filter", "fqdn-template", "ingress-class",
				"service-type-filter", "publish-internal-services", "default-targets", "manifest"}},
		{name: "registry", title: "Registry flags (record ownership)",
			exact: []string{"registry", "migrate-from-txt-owner"}, prefixes: []string{"txt-", "crd-registry-"},
			short: []string{"registry", "txt-owner-id", "txt-prefix", "txt-suffix", "crd-registry-namespace"}},
		{name: "policy", title: "Policy and filter flags (what may be changed)",
			exact: []string{"policy", "managed-record-types", "exclude-record-types", "domain-filter", "exclude-domains",
				"zone-id-filter", "target-net-filter", "exclude-target-net"},
			prefixes: []string{"regex-domain-"},
			short:    []string{"policy", "domain-filter", "exclude-domains", "regex-domain-filter", "managed-record-types", "zone-id-filter"}},
		{name: "provider", title: "Provider flags",
			exact: []string{"provider"}, prefixes: []string{"tls-"},
			short: []string{"provider"}},
		{name: "webhook-server", title: "Webhook server flags (zonekeeper webhook)",
			exact:    []string{"webhook-provider-read-header-timeout", "webhook-provider-idle-timeout", "webhook-provider-max-body-size"},
			prefixes: []string{"webhook-server"},
			short:    []string{"webhook-server-address"}},
		{name: "views", title: "View flags (split horizon)",
			prefixes: []string{"view", "public-ip"},
			short:    []string{"view", "view-targets", "view-provider", "view-subnets", "public-ip"}},
		{name: "operations", title: "Operations flags (metrics, leader election)",
			exact: []string{"metrics-address"}, prefixes: []string{"leader-elect"},
			short: []string{"metrics-address", "leader-elect", "leader-elect-namespace"}},
		{name: "guard", title: "Mass-change guard flags",
			prefixes: []string{"guard-"},
			short:    []string{"guard-max-delete-fraction", "guard-confirm"}},
	}
}

// sourceKindPrefixes are the name prefixes of source-specific flags, from the table of source kinds:
// the first word of each kind's name ("gateway-" for gateway-httproute, "pod-" for pod).
func sourceKindPrefixes() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range kinds.Names() {
		p, _, _ := strings.Cut(n, "-")
		if !seen[p] {
			seen[p] = true
			out = append(out, p+"-")
		}
	}
	return out
}

// kindFlags maps each flag a provider kind binds to the kind's name, with the kinds in table order.
func kindFlags() (map[string]string, []providerKindInfo) {
	var s providerkinds.Settings
	owner := map[string]string{}
	var infos []providerKindInfo
	for _, k := range providerkinds.All(&s) {
		fs := flag.NewFlagSet(k.Name, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		k.Flags(fs)
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			owner[f.Name] = k.Name
			n++
		})
		infos = append(infos, providerKindInfo{name: k.Name, describe: k.Describe(), summary: k.Summary, flags: n})
	}
	return owner, infos
}

type providerKindInfo struct {
	name, describe, summary string
	flags                   int
}

// helpGroupCandidates returns the groups name belongs to under the most specific rule that places it;
// more than one is a conflict in the tables.
func helpGroupCandidates(name string, byKind map[string]string, table []helpGroup) []string {
	var definite []string
	if k, ok := byKind[name]; ok {
		definite = append(definite, k)
	}
	if _, ok := refusedFlags()[name]; ok {
		definite = append(definite, groupRefused)
	}
	if _, ok := notAppliedReasons()[name]; ok {
		definite = append(definite, groupNotApplied)
	}
	for _, g := range table {
		for _, e := range g.exact {
			if e == name {
				definite = append(definite, g.name)
			}
		}
	}
	if len(definite) > 0 {
		return definite
	}
	best, bestLen := []string(nil), 0
	for _, g := range table {
		for _, p := range g.prefixes {
			if !strings.HasPrefix(name, p) || len(p) < bestLen {
				continue
			}
			if len(p) > bestLen {
				best, bestLen = nil, len(p)
			}
			best = append(best, g.name)
		}
	}
	return best
}

// FlagGroups sorts the flags of fs into the help's groups, in the order the help shows them.
func FlagGroups(fs *flag.FlagSet) []FlagGroup {
	byKind, infos := kindFlags()
	table := helpGroups()
	var groups []FlagGroup
	index := map[string]int{}
	add := func(g FlagGroup) {
		index[g.Name] = len(groups)
		groups = append(groups, g)
	}
	for _, g := range table {
		add(FlagGroup{Name: g.name, Title: g.title, Short: g.short})
		if g.name == "provider" {
			for _, k := range infos {
				add(FlagGroup{Name: k.name, Title: "Provider " + k.describe + " flags", Kind: true, Summary: k.summary})
			}
		}
	}
	add(FlagGroup{Name: groupNotApplied, Title: "External-dns flags accepted and not applied (a run that sets one logs why)"})
	add(FlagGroup{Name: groupRefused, Title: "External-dns flags zonekeeper refuses (accepted at external-dns's default value, an error otherwise)"})
	add(FlagGroup{Name: groupUnplaced, Title: "Flags not placed in a group"})
	fs.VisitAll(func(f *flag.Flag) {
		g := groupUnplaced
		if c := helpGroupCandidates(f.Name, byKind, table); len(c) > 0 {
			g = c[0]
		}
		groups[index[g]].Flags = append(groups[index[g]].Flags, f)
	})
	for i := range groups {
		sort.Slice(groups[i].Flags, func(a, b int) bool { return groups[i].Flags[a].Name < groups[i].Flags[b].Name })
	}
	return groups
}

// helpFlagSet is the main command's flag set with the default configuration, for help and completion.
func helpFlagSet() *flag.FlagSet {
	cfg := Default()
	return NewFlagSet("zonekeeper", &cfg, io.Discard)
}

// HelpGroupNames are the names `zonekeeper flags NAME` takes, in help order, with "all".
func HelpGroupNames() []string {
	var out []string
	for _, g := range FlagGroups(helpFlagSet()) {
		if g.Name != groupUnplaced || len(g.Flags) > 0 {
			out = append(out, g.Name)
		}
	}
	return append(out, "all")
}
