package config

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Issue 12 item 6: every flag of the flag set lands in exactly one help group, by the tables that
// place it (provider kinds, refused and not-applied flags, the exact names and prefixes of
// helpGroups). A new flag none of them place, or one two of them claim, fails here by name; so does a
// name in helpGroups that is no flag any more.
func TestEveryFlagIsInExactlyOneHelpGroup(t *testing.T) {
	fs := helpFlagSet()
	byKind, _ := kindFlags()
	table := helpGroups()
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if c := helpGroupCandidates(f.Name, byKind, table); len(c) != 1 {
			t.Errorf("--%s is placed in %d help groups %q, want exactly one (internal/config/help_groups.go)", f.Name, len(c), c)
		}
	})
	placed := 0
	for _, g := range FlagGroups(fs) {
		placed += len(g.Flags)
		if g.Name == groupUnplaced && len(g.Flags) > 0 {
			t.Errorf("flags in no help group: %v", names(g.Flags))
		}
	}
	if placed != n || n < 200 {
		t.Errorf("%d flags placed in groups, flag set has %d", placed, n)
	}
	groupOf := map[string]string{}
	for _, g := range FlagGroups(fs) {
		for _, f := range g.Flags {
			groupOf[f.Name] = g.Name
		}
	}
	for _, g := range table {
		for _, name := range append(append([]string{}, g.exact...), g.short...) {
			if fs.Lookup(name) == nil {
				t.Errorf("help group %s names --%s, which is no flag", g.name, name)
			} else if groupOf[name] != g.name {
				t.Errorf("help group %s names --%s, which lands in group %s", g.name, name, groupOf[name])
			}
		}
		if g.name == "sources" {
			continue // its prefixes come from the table of source kinds; not every kind has flags
		}
		for _, p := range g.prefixes {
			matched := false
			fs.VisitAll(func(f *flag.Flag) { matched = matched || (strings.HasPrefix(f.Name, p) && groupOf[f.Name] == g.name) })
			if !matched {
				t.Errorf("help group %s: prefix %q places no flag", g.name, p)
			}
		}
	}
}

func names(fs []*flag.Flag) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// Issue 12 item 6 ("zonekeeper --help under 120 lines"): --help, through the parser as a user runs
// it, is short, in --flag style, without the refused external-dns flags, and points to every provider
// kind's flags.
func TestHelpIsShortAndGrouped(t *testing.T) {
	var out bytes.Buffer
	_, _, err := Parse("zonekeeper", []string{"--help"}, func(string) string { return "" }, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v, want flag.ErrHelp", err)
	}
	help := out.String()
	lines := strings.Count(help, "\n")
	if lines >= 120 {
		t.Errorf("--help has %d lines, want fewer than 120:\n%s", lines, help)
	}
	t.Logf("--help: %d lines", lines)
	if regexp.MustCompile(`(?m)^\s+-[a-z]`).MatchString(help) {
		t.Errorf("--help shows a Go-style -flag entry:\n%s", help)
	}
	for name := range refusedFlags() {
		if regexp.MustCompile(`--` + regexp.QuoteMeta(name) + `\b`).MatchString(help) {
			t.Errorf("--help shows the refused flag --%s", name)
		}
	}
	for _, k := range []string{"aws", "coredns", "rfc2136", "pdns", "cloudflare", "builtin", "inmemory", "webhook"} {
		if !strings.Contains(help, "--provider="+k+" ") || !strings.Contains(help, "zonekeeper flags "+k+"\n") {
			t.Errorf("--help has no line for --provider=%s pointing to its flags", k)
		}
	}
	for _, want := range []string{"--source strings", "--txt-owner-id string", "--domain-filter strings", "zonekeeper --help-all", "EXTERNAL_DNS_"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	for _, l := range strings.Split(help, "\n") {
		if len([]rune(l)) > helpWidth {
			t.Errorf("--help line longer than %d: %q", helpWidth, l)
		}
	}
}

// --help-all (zonekeeper flags all) lists every flag of the flag set: each with its environment
// variables and description, the refused ones in their own section with their reason.
func TestHelpAllListsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	if err := WriteFlags(&out, "all"); err != nil {
		t.Fatal(err)
	}
	all := out.String()
	refusedAt := strings.Index(all, "External-dns flags zonekeeper refuses")
	if refusedAt < 0 {
		t.Fatalf("--help-all has no section of refused flags:\n%s", all)
	}
	refused := refusedFlags()
	fs := NewFlagSet("zonekeeper", new(Config), io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		listed := regexp.MustCompile(`(?m)(^|\s)--` + regexp.QuoteMeta(f.Name) + `(\s|,|$)`)
		loc := listed.FindStringIndex(all)
		if loc == nil {
			t.Errorf("--help-all does not list --%s", f.Name)
			return
		}
		key := strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if r, ok := refused[f.Name]; ok {
			section := all[refusedAt:]
			if i := listed.FindStringIndex(section); i == nil || !strings.Contains(section[i[0]:], r.reason) {
				t.Errorf("--help-all does not list the refused --%s with its reason in the refused section", f.Name)
			}
			return
		}
		if loc[0] > refusedAt {
			t.Errorf("--%s is listed among the refused flags", f.Name)
		}
		if !strings.Contains(all, "$ZONEKEEPER_"+key+", $EXTERNAL_DNS_"+key+"]") || !strings.Contains(all, f.Usage) {
			t.Errorf("--help-all lacks the environment variables or the description of --%s", f.Name)
		}
	})
	var aws bytes.Buffer
	if err := WriteFlags(&aws, "aws"); err != nil || !strings.Contains(aws.String(), "--aws-region string") || strings.Contains(aws.String(), "--pdns-server") {
		t.Errorf("zonekeeper flags aws: %v\n%s", err, aws.String())
	}
	var alias bytes.Buffer
	if err := WriteFlags(&alias, "skydns"); err != nil || !strings.Contains(alias.String(), "--coredns-prefix string") {
		t.Errorf("zonekeeper flags skydns (an alias of coredns): %v\n%s", err, alias.String())
	}
	if err := WriteFlags(io.Discard, "nonesuch"); err == nil || !strings.Contains(err.Error(), "aws") {
		t.Errorf("an unknown group: %v, want an error listing the groups", err)
	}
}

// The values shell completion offers for --provider, --source, --registry, --policy, --log-format
// and --log-level are the values the parser accepts, and a value outside them is refused.
func TestFlagValuesAreAccepted(t *testing.T) {
	noEnv := func(string) string { return "" }
	base := []string{"--source=service", "--provider=inmemory", "--manifest=x"}
	for _, name := range EnumFlags() {
		values := FlagValues(name)
		if len(values) < 2 {
			t.Errorf("--%s: %d values", name, len(values))
		}
		for _, v := range values {
			if _, _, err := Parse("zonekeeper", append(slices.Clone(base), "--"+name+"="+v), noEnv, io.Discard); err != nil {
				t.Errorf("--%s=%s, offered by completion, is refused: %v", name, v, err)
			}
		}
		if _, _, err := Parse("zonekeeper", append(slices.Clone(base), "--"+name+"=nonesuch"), noEnv, io.Discard); err == nil {
			t.Errorf("--%s=nonesuch is accepted: its values are not a known set", name)
		}
	}
}
