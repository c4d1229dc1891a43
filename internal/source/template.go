package source

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"text/template"
	"unicode"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// templateFuncs are the functions external-dns v0.23 offers to its three templates (--fqdn-template,
// --target-template, --fqdn-target-template). Its isSource is not offered: a template calling it fails
// at startup ("function not defined") rather than evaluating wrongly.
var templateFuncs = template.FuncMap{
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
	// An IPv4-mapped IPv6 address counts as IPv6, as external-dns classifies it (an AAAA target).
	"isIPv6": func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && !a.Is4()
	},
	// hasKey tells a label or annotation set to "" from a missing one, which index cannot.
	"hasKey": func(m map[string]string, key string) bool {
		_, ok := m[key]
		return ok
	},
	// fromJson decodes a JSON string (an annotation holding a list, say); nil when it is not JSON.
	"fromJson": func(s string) any {
		var v any
		_ = json.Unmarshal([]byte(s), &v)
		return v
	},
}

// parseTemplate returns nil for an empty template. missingkey=error makes a typo in a map key an
// error on the object rather than a silent "<no value>" name or target. name is the flag.
func parseTemplate(name, text string) (*template.Template, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	return template.New(name).Funcs(templateFuncs).Option("missingkey=error").Parse(text)
}

// runTemplate executes one template over obj and returns its comma-separated values, trimmed, without
// a trailing dot, empty ones dropped, each once in the order produced. When the typed object fails,
// the template runs again over the object's JSON shape (templateData), as external-dns v0.23 does, so
// that {{.Spec.virtualServerAddress}} works as well as {{.Spec.VirtualServerAddress}}. A failure of both
// is a Problem on the object naming the flag; ok is false then.
func runTemplate(o *objectInput, flag, text string, t *template.Template, obj any) (values []string, ok bool) {
	var buf bytes.Buffer
	if err := t.Execute(&buf, obj); err != nil {
		data, convErr := templateDataOf(obj)
		buf.Reset()
		if convErr != nil {
			o.problem(flag, text, err.Error())
			return nil, false
		}
		if err2 := t.Execute(&buf, data); err2 != nil {
			o.problem(flag, text, err.Error()+" (and over the object's JSON fields: "+err2.Error()+")")
			return nil, false
		}
	}
	seen := map[string]bool{}
	for _, v := range strings.Split(buf.String(), ",") {
		v = strings.TrimSuffix(strings.TrimFunc(v, unicode.IsSpace), ".")
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		values = append(values, v)
	}
	return values, true
}

// templateData is the JSON-shaped view of an object that external-dns v0.23 retries a template over
// (the shape of its unstructured source): Spec and Status keyed by their JSON field names.
type templateData struct {
	Name, Namespace, Kind, APIVersion string
	Labels, Annotations               map[string]string
	Metadata, Spec, Status, Object    map[string]any
}

func templateDataOf(obj any) (*templateData, error) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	d := &templateData{
		Name: accessor.GetName(), Namespace: accessor.GetNamespace(),
		Labels: accessor.GetLabels(), Annotations: accessor.GetAnnotations(), Object: raw,
	}
	if k, ok := obj.(interface{ GetObjectKind() schema.ObjectKind }); ok {
		gvk := k.GetObjectKind().GroupVersionKind()
		d.Kind, d.APIVersion = gvk.Kind, gvk.GroupVersion().String()
	}
	d.Metadata, _ = raw["metadata"].(map[string]any)
	d.Spec, _ = raw["spec"].(map[string]any)
	d.Status, _ = raw["status"].(map[string]any)
	return d, nil
}

// templateHostnames executes --fqdn-template over obj and returns the valid names it produced. A
// failing template or a bad name is a Problem on the object.
func (c *compiled) templateHostnames(o *objectInput, obj any) []string {
	if c.fqdnTemplate == nil {
		return nil
	}
	names, _ := runTemplate(o, "--fqdn-template", c.FQDNTemplate, c.fqdnTemplate, obj)
	var out []string
	for _, name := range names {
		n, err := endpoint.NormalizeDNSName(name)
		if err != nil {
			o.problem("--fqdn-template", name, err.Error())
			continue
		}
		out = append(out, n)
	}
	return out
}
