package config

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
)

// Command is one of zonekeeper's subcommands, as the help and the shell completion list it.
type Command struct {
	Name, Args, Summary string
}

// Commands are zonekeeper's subcommands; internal/app dispatches each (its test checks that).
func Commands() []Command {
	return []Command{
		{"plan", "[flags]", "print the changes a run would make; exit 0 if none, 2 if some, 1 on error"},
		{"webhook", "[flags]", "serve --provider over external-dns's webhook protocol (as --webhook-server)"},
		{"mirror", "[flags]", "copy an etcd prefix to another with rewrite rules (replaces etcd-injector)"},
		{"flags", "[GROUP]", "list every flag of a group (or all) with its type, default and environment variable"},
		{"completion", "bash|zsh|fish", "print a shell completion script"},
		{"version", "", "print the version"},
		{"help", "", "print this help"},
	}
}

// helpWidth is where the descriptions of the short help are cut, so that each flag takes one line.
const helpWidth = 120

// WriteUsage writes the short help (`zonekeeper --help`): the commands, and per group the flags most
// used; the provider kinds get one line each. `zonekeeper --help-all` and `zonekeeper flags` list the
// rest.
func WriteUsage(w io.Writer, name string) {
	writeUsage(w, name, helpFlagSet())
}

func writeUsage(w io.Writer, name string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "zonekeeper keeps DNS records in step with Kubernetes objects; it takes external-dns's flags.\n\n")
	fmt.Fprintf(w, "Usage:\n  %s [flags]\n", name)
	if name == "zonekeeper" {
		fmt.Fprintf(w, "  zonekeeper COMMAND [args]\n\nCommands:\n")
		for _, c := range Commands() {
			fmt.Fprintf(w, "  %-26s %s\n", strings.TrimSpace(c.Name+" "+c.Args), c.Summary)
		}
	}
	groups := FlagGroups(fs)
	var shown []*flag.Flag
	for _, g := range groups {
		for _, n := range g.Short {
			if f := fs.Lookup(n); f != nil && !g.Kind {
				shown = append(shown, f)
			}
		}
	}
	col := 0
	for _, f := range shown {
		col = max(col, len(shortHead(f)))
	}
	fmt.Fprintln(w)
	for _, g := range groups {
		if g.Kind || len(g.Short) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s:\n", g.Title)
		for _, n := range g.Short {
			if f := fs.Lookup(n); f != nil {
				fmt.Fprintln(w, shortLine(f, col))
			}
		}
		if g.Name == "provider" {
			for _, k := range groups {
				if k.Kind {
					fmt.Fprintln(w, cut(fmt.Sprintf("%-*s %s", col, "      --provider="+k.Name, kindLine(k))))
				}
			}
		}
		if more := len(g.Flags) - len(g.Short); more > 0 {
			fmt.Fprintf(w, "      … %d more: zonekeeper flags %s\n", more, g.Name)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Every flag can also be set as ZONEKEEPER_<FLAG> or EXTERNAL_DNS_<FLAG> in the environment\n")
	fmt.Fprintf(w, "(--txt-owner-id: ZONEKEEPER_TXT_OWNER_ID); a boolean --FLAG is turned off with --no-FLAG.\n")
	fmt.Fprintf(w, "Every flag with its default, and the external-dns flags zonekeeper refuses: zonekeeper --help-all\n")
}

// kindLine is a provider kind's line in the short help: what it is and where its flags are.
func kindLine(k FlagGroup) string {
	n := fmt.Sprintf("%d flags", len(k.Flags))
	if len(k.Flags) == 1 {
		n = "1 flag"
	}
	if k.Summary != "" {
		return k.Summary + ": " + n + ", zonekeeper flags " + k.Name
	}
	return n + ": zonekeeper flags " + k.Name
}

// shortHead is a flag's name and type as the short help shows them.
func shortHead(f *flag.Flag) string {
	head := "      --" + f.Name
	if t := flagType(f); t != "bool" {
		head += " " + t
	}
	return head
}

// shortLine is one flag of the short help: name, type, and the description's first clause, cut to
// one line (--help-all has the whole text).
func shortLine(f *flag.Flag, col int) string {
	desc := f.Usage
	if i := indexClause(desc); i > 0 {
		desc = desc[:i]
	}
	if d := defaultText(f); d != "" {
		desc += " (default " + d + ")"
	}
	return cut(fmt.Sprintf("%-*s %s", col, shortHead(f), desc))
}

// indexClause is where the first clause of a description ends ("; " outside parentheses), or -1.
func indexClause(desc string) int {
	i := strings.Index(desc, "; ")
	if i > 0 && strings.Count(desc[:i], "(") == strings.Count(desc[:i], ")") {
		return i
	}
	return -1
}

// cut shortens a line to helpWidth characters.
func cut(line string) string {
	if r := []rune(line); len(r) > helpWidth {
		return string(r[:helpWidth-1]) + "…"
	}
	return line
}

// WriteFlags writes every flag of the group (a FlagGroup name, or "all" for every group), each with
// its type, default, environment variables and full description. It returns an error naming the
// groups when group is unknown.
func WriteFlags(w io.Writer, group string) error {
	fs := helpFlagSet()
	groups := FlagGroups(fs)
	if k, ok := providerkinds.Lookup(&providerkinds.Settings{}, group); ok {
		group = k.Name // zonekeeper flags skydns: the coredns kind's flags
	}
	found := false
	for _, g := range groups {
		if len(g.Flags) == 0 || (group != "all" && group != g.Name) {
			continue
		}
		found = true
		writeGroup(w, g)
	}
	if !found {
		return fmt.Errorf("unknown flag group %q (groups: %s)", group, strings.Join(HelpGroupNames(), ", "))
	}
	return nil
}

func writeGroup(w io.Writer, g FlagGroup) {
	fmt.Fprintf(w, "%s (zonekeeper flags %s):\n", g.Title, g.Name)
	if g.Name == groupRefused {
		writeRefused(w, g.Flags)
		return
	}
	for _, f := range g.Flags {
		head := "  --" + f.Name
		if t := flagType(f); t == "bool" {
			head += ", --no-" + f.Name
		} else {
			head += " " + t
		}
		if d := defaultText(f); d != "" {
			head += " (default " + d + ")"
		}
		key := strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		fmt.Fprintf(w, "%s  [$ZONEKEEPER_%s, $EXTERNAL_DNS_%s]\n", head, key, key)
		fmt.Fprintf(w, "        %s\n", f.Usage)
	}
	fmt.Fprintln(w)
}

// writeRefused lists the refused flags under their reason, so that the flags of one provider
// zonekeeper does not have read as one entry.
func writeRefused(w io.Writer, fs []*flag.Flag) {
	refused := refusedFlags()
	byReason := map[string][]string{}
	for _, f := range fs {
		r := refused[f.Name].reason
		byReason[r] = append(byReason[r], "--"+f.Name)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "  %s\n        %s\n", strings.Join(byReason[r], " "), r)
	}
	fmt.Fprintln(w)
}

// flagType names a flag's value type as pflag does: string, int, float, duration, bool, strings.
func flagType(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return "bool"
	}
	switch reflect.TypeOf(f.Value).String() {
	case "*flag.intValue", "*flag.int64Value":
		return "int"
	case "*flag.uintValue", "*flag.uint64Value":
		return "uint"
	case "*flag.float64Value":
		return "float"
	case "*flag.durationValue":
		return "duration"
	case "*flagvalue.List", "*config.joinedList":
		return "strings"
	}
	return "string"
}

// defaultText is the default as the help shows it, or "" for a zero default.
func defaultText(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if t := flagType(f); t == "string" || t == "strings" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}
