package gateway

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/source"
)

// routeHosts returns the names a route asks for, before they meet the listeners: spec.hostnames,
// --fqdn-template and the hostname annotation, as gateway-hostname-source selects. "" stands for a
// route without spec.hostnames, which takes the hostname of each listener it attaches to.
func (r *resolver) routeHosts(o *source.Object, rt *route) []string {
	var defined []string
	for i, h := range rt.hostnames {
		if n := o.NormalizeHost(fmt.Sprintf("spec.hostnames[%d]", i), string(h)); n != "" {
			defined = append(defined, n)
		}
	}
	if set, combine := r.s.k.HasTemplate(); set && (len(rt.hostnames) == 0 || combine) {
		defined = append(defined, checked(o, "--fqdn-template", o.TemplateHostnames(r.s.a.typed(rt.raw)))...)
	}
	annotated := func() []string {
		_, field, _ := o.Annotation("hostname")
		return checked(o, field, o.HostnameAnnotation())
	}
	switch o.HostnameSource(source.KeyGatewayHostnameSource) {
	case source.HostnameSourceAnnotationOnly:
		return annotated()
	case source.HostnameSourceDefinedOnly:
		if v, field, present := o.Annotation("hostname"); present {
			o.Problem(field, v, "not read: the route's gateway-hostname-source annotation is defined-hosts-only")
		}
		return defined
	}
	if len(rt.hostnames) == 0 {
		defined = append(defined, "")
	}
	return append(defined, annotated()...)
}

// checked keeps the names that can meet a listener hostname: RFC 1123 names, optionally under one
// leading "*." label, and no IP address. The others are Problems on field.
func checked(o *source.Object, field string, hosts []string) []string {
	out := hosts[:0]
	for _, h := range hosts {
		if reason := hostProblem(h); reason != "" {
			o.Problem(field, h, reason)
			continue
		}
		out = append(out, h)
	}
	return out
}

// hostProblem says why h is not a Gateway API hostname ("" when it is one).
func hostProblem(h string) string {
	if _, err := netip.ParseAddr(h); err == nil {
		return "an IP address is not a hostname"
	}
	for _, label := range strings.Split(strings.TrimPrefix(h, "*."), ".") {
		if !dns1123Label(label) {
			return fmt.Sprintf("label %q is not an RFC 1123 label (letters, digits and inner hyphens)", label)
		}
	}
	return ""
}

func dns1123Label(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// matchHost intersects a listener hostname with a route hostname (both normalised; "" matches any
// name) and returns the more specific one. A "*." prefix matches one or more labels: "*.example.com"
// takes "a.example.com" and "a.b.example.com" but not "example.com".
func matchHost(listener, rt string) (string, bool) {
	switch {
	case listener == "":
		return rt, true
	case rt == "" || listener == rt:
		return listener, true
	}
	wide, narrow := listener, rt
	if len(narrow) < len(wide) || (len(narrow) == len(wide) && strings.HasPrefix(narrow, "*.")) {
		wide, narrow = narrow, wide
	}
	if strings.HasPrefix(wide, "*.") && strings.HasSuffix(narrow, wide[1:]) {
		return narrow, true
	}
	return "", false
}
