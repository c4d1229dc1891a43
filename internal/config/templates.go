package config

import (
	"slices"
	"strings"
)

// templateSources are the sources that apply --target-template and --fqdn-target-template, as in
// external-dns v0.23 (its unstructured source, which applies both, is not part of zonekeeper);
// manifest reads objects of every kind, so it may apply them too.
func templateSources() map[string][]string {
	return map[string][]string{
		"target-template":      {"gloo-proxy", "traefik-proxy", "f5-virtualserver", "f5-transportserver", "manifest"},
		"fqdn-target-template": {"service", "node", "pod", "gloo-proxy", "traefik-proxy", "f5-virtualserver", "f5-transportserver", "manifest"},
	}
}

// notAppliedTemplates returns "--flag: reason" for a template flag that is set while none of the
// configured sources applies it: external-dns ignores it there silently, zonekeeper logs it.
func notAppliedTemplates(sources []string, set map[string]bool) []string {
	applying := templateSources()
	var out []string
	for _, flag := range []string{"fqdn-target-template", "target-template"} {
		if !set[flag] {
			continue
		}
		applies := slices.ContainsFunc(sources, func(s string) bool { return slices.Contains(applying[flag], s) })
		if !applies {
			out = append(out, "--"+flag+": not applied: none of the sources given uses it (it applies to "+
				strings.Join(applying[flag][:len(applying[flag])-1], ", ")+")")
		}
	}
	return out
}
