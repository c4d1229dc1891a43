package config

import (
	providerkinds "github.com/zonekeeper/zonekeeper/internal/provider/kinds"
	"github.com/zonekeeper/zonekeeper/internal/source/kinds"
)

// FlagValues returns the values a flag takes when they are a known set (for shell completion), or
// nil. --provider and --source come from the tables of kinds; the others are the values Validate
// accepts (TestFlagValuesAreAccepted keeps the two in step).
func FlagValues(name string) []string {
	switch name {
	case "provider":
		var out []string
		for _, k := range providerkinds.All(&providerkinds.Settings{}) {
			out = append(out, k.Names()...)
		}
		return out
	case "source":
		return kinds.Names()
	case "registry":
		return []string{"txt", "crd", "noop"}
	case "policy":
		return []string{"sync", "upsert-only", "create-only"}
	case "log-format":
		return []string{"text", "json"}
	case "log-level":
		return []string{"debug", "info", "warn", "error"}
	}
	return nil
}

// EnumFlags are the flags FlagValues knows the values of.
func EnumFlags() []string {
	return []string{"provider", "source", "registry", "policy", "log-format", "log-level"}
}

// CompletionFlags are the flags shell completion offers: every flag but the refused external-dns
// ones (setting one is an error), with the first clause of its description.
func CompletionFlags() []CompletionFlag {
	var out []CompletionFlag
	for _, g := range FlagGroups(helpFlagSet()) {
		if g.Name == groupRefused {
			continue
		}
		for _, f := range g.Flags {
			desc := f.Usage
			if i := indexClause(desc); i > 0 {
				desc = desc[:i]
			}
			out = append(out, CompletionFlag{Name: f.Name, Description: desc, Bool: flagType(f) == "bool"})
		}
	}
	return out
}

// CompletionFlag is a flag as shell completion offers it.
type CompletionFlag struct {
	Name, Description string
	Bool              bool
}
