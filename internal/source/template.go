package source

import (
	"bytes"
	"net/netip"
	"strings"
	"text/template"
	"unicode"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// fqdnTemplateFuncs are the functions external-dns offers to --fqdn-template.
var fqdnTemplateFuncs = template.FuncMap{
	"contains":   strings.Contains,
	"trimPrefix": strings.TrimPrefix,
	"trimSuffix": strings.TrimSuffix,
	"trim":       strings.TrimSpace,
	"toLower":    strings.ToLower,
	"replace":    func(oldValue, newValue, s string) string { return strings.ReplaceAll(s, oldValue, newValue) },
	"isIPv4": func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	},
	"isIPv6": func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && !a.Is4In6()
	},
}

// parseFQDNTemplate returns nil for an empty template. missingkey=error makes a typo in a map key an
// error on the object rather than a silent "<no value>" hostname.
func parseFQDNTemplate(text string) (*template.Template, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	return template.New("fqdn-template").Funcs(fqdnTemplateFuncs).Option("missingkey=error").Parse(text)
}

// templateHostnames executes --fqdn-template over obj and returns the valid names it produced. A
// failing template or a bad name is a Problem on the object.
func (c *compiled) templateHostnames(o *objectInput, obj any) []string {
	if c.fqdnTemplate == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := c.fqdnTemplate.Execute(&buf, obj); err != nil {
		o.problem("--fqdn-template", c.FQDNTemplate, err.Error())
		return nil
	}
	var out []string
	for _, name := range strings.Split(buf.String(), ",") {
		name = strings.TrimFunc(name, unicode.IsSpace)
		if name == "" {
			continue
		}
		n, err := endpoint.NormalizeDNSName(name)
		if err != nil {
			o.problem("--fqdn-template", name, err.Error())
			continue
		}
		out = append(out, n)
	}
	return out
}
