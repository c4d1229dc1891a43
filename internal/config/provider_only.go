package config

import "sort"

// providerOnlyFlags are external-dns's generic flags that only one provider reads, in external-dns
// and here: set with another provider they are accepted and not applied, and reported so.
var providerOnlyFlags = map[string]string{
	"batch-change-size":     "cloudflare",
	"batch-change-interval": "cloudflare",
}

// notAppliedForProvider returns "--flag: reason" for each provider-only flag set with another
// provider.
func notAppliedForProvider(provider string, set map[string]bool) []string {
	var out []string
	for name, only := range providerOnlyFlags {
		if set[name] && provider != only {
			out = append(out, "--"+name+": only --provider="+only+" reads it; the other providers batch by their own flags (--aws-batch-change-size, --rfc2136-batch-change-size)")
		}
	}
	sort.Strings(out)
	return out
}
