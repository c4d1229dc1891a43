package source

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Values of the controller, access, endpoints-type and ingress-hostname-source annotations.
const (
	controllerValue          = "dns-controller"
	accessPublic             = "public"
	accessPrivate            = "private"
	endpointsTypeNodeExtIP   = "NodeExternalIP"
	endpointsTypeHostIP      = "HostIP"
	hostnameSourceAnnotation = "annotation-only"
	hostnameSourceDefined    = "defined-hosts-only"
)

// providerSpecificPrefixes maps annotation key prefixes (after the zonekeeper prefix) to the
// provider-specific property prefix they are copied under, as external-dns does.
var providerSpecificPrefixes = []struct{ annotation, property string }{
	{"aws-", "aws/"},
	{"coredns-", "coredns/"},
	{"webhook-", "webhook/"},
	{"scw-", "scw/"},
	{"azure-", "azure/"},
	{"cloudflare-", "cloudflare/"},
}

// awsAnnotations are the aws- annotations Route 53 reads (external-dns v0.23's aws/ properties; the
// provider stores or routes by each). Any other aws- annotation is a typo: a problem, not a property
// the provider would drop without a word.
var awsAnnotations = []string{
	"aws-evaluate-target-health", "aws-failover", "aws-geolocation-continent-code", "aws-geolocation-country-code",
	"aws-geolocation-subdivision-code", "aws-geoproximity-bias", "aws-geoproximity-coordinates",
	"aws-geoproximity-local-zone-group", "aws-geoproximity-region", "aws-health-check-id", "aws-hosted-zone-id",
	"aws-multi-value-answer", "aws-region", "aws-target-hosted-zone", "aws-weight",
}

// cloudflareAnnotations are the cloudflare- annotations external-dns v0.23 reads (as cloudflare/
// properties); any other is a typo, a problem on the object.
var cloudflareAnnotations = []string{
	"cloudflare-custom-hostname", "cloudflare-proxied", "cloudflare-record-comment", "cloudflare-region-key", "cloudflare-tags",
}

// skippedByController reports whether the controller annotation hands the object to another controller.
func (o *objectInput) skippedByController() bool {
	v, _, ok := o.lookup(keyController)
	return ok && v != controllerValue
}

// hostnames returns the valid, normalised names of a comma-separated hostname annotation. Each bad
// name becomes a Problem; the others are kept.
func (o *objectInput) hostnames(key string) []string {
	v, full, ok := o.lookup(key)
	if !ok {
		return nil
	}
	var out []string
	for _, h := range splitList(v) {
		n, err := endpoint.NormalizeDNSName(h)
		if err != nil {
			o.problem(annotationField(full), h, err.Error())
			continue
		}
		out = append(out, n)
	}
	return out
}

// annotationTargets returns the targets of the target annotation. present is false when the annotation
// is absent or empty, so the object's own addresses apply; when it is set, only its valid values are
// used, even if none is valid (the user asked to override).
func (o *objectInput) annotationTargets() (t targets, present bool) {
	v, full, ok := o.lookup(keyTarget)
	if !ok {
		return t, false
	}
	values := splitList(v)
	if len(values) == 0 {
		return t, false
	}
	for _, s := range values {
		t.add(o, annotationField(full), s)
	}
	return t, true
}

// ttl returns the TTL annotation in seconds, 0 when absent or invalid.
func (o *objectInput) ttl() endpoint.TTL {
	v, full, ok := o.lookup(keyTTL)
	if !ok {
		return 0
	}
	secs, err := parseTTL(v)
	if err != nil {
		o.problem(annotationField(full), v, err.Error())
		return 0
	}
	return endpoint.TTL(secs)
}

// parseTTL accepts integer seconds or a Go duration, in 1..2^31-1 seconds.
func parseTTL(s string) (int64, error) {
	s = strings.TrimSpace(s)
	var secs int64
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		secs = n
	} else if d, derr := time.ParseDuration(s); derr == nil {
		secs = int64(d / time.Second)
	} else {
		return 0, fmt.Errorf("not an integer number of seconds nor a duration like 10m")
	}
	if secs < 1 || secs > endpoint.MaxTTL {
		return 0, fmt.Errorf("TTL must be between 1 and %d seconds", endpoint.MaxTTL)
	}
	return secs, nil
}

// setIdentifier returns the set-identifier annotation.
func (o *objectInput) setIdentifier() string {
	v, _, _ := o.lookup(keySetIdentifier)
	return strings.TrimSpace(v)
}

// choice returns an annotation restricted to a set of values (compared case-insensitively, returned
// in canonical spelling); any other value is a Problem and counts as unset.
func (o *objectInput) choice(key string, allowed ...string) string {
	v, full, ok := o.lookup(key)
	if !ok {
		return ""
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(v), a) {
			return a
		}
	}
	o.problem(annotationField(full), v, fmt.Sprintf("must be one of %s", strings.Join(allowed, ", ")))
	return ""
}

// aliasProperty is the property the alias annotation sets (provider.AliasProperty).
const aliasProperty = "alias"

// providerSpecific returns the provider hints: alias, record-type, and every aws-, coredns-, webhook-, scw-,
// azure- and cloudflare- annotation copied to aws/, coredns/, ... properties. Sorted by name for stable output.
func (o *objectInput) providerSpecific() endpoint.ProviderSpecific {
	o.read |= providerSpecificRead
	var ps endpoint.ProviderSpecific
	if v, full, ok := o.lookup(keyAlias); ok {
		switch strings.TrimSpace(v) {
		case "true", "false", "A", "AAAA":
			// A and AAAA (Route 53): an alias of this family only; the provider interprets the value.
			// external-dns keeps alias for every provider; only Route 53 and a webhook's server read it.
			if why := o.reader.properties.unread(aliasProperty); why != "" {
				o.problem(annotationField(full), v, why)
				break
			}
			ps = append(ps, endpoint.ProviderSpecificProperty{Name: aliasProperty, Value: strings.TrimSpace(v)})
		default:
			o.problem(annotationField(full), v, "must be true, false, A or AAAA")
		}
	}
	// Carried as external-dns v0.23 carries it, raw; the PTR stage (ptr.go) reads it, reports what it
	// cannot honour, and takes it off before any provider sees the endpoint.
	if v, _, ok := o.lookup(keyRecordType); ok {
		ps = append(ps, endpoint.ProviderSpecificProperty{Name: endpoint.ProviderSpecificRecordType, Value: v})
	}
	for k, v := range o.annotations {
		suffix, ok := o.reader.splitKey(o.annotations, k)
		if !ok {
			continue
		}
		for _, p := range providerSpecificPrefixes {
			if rest, ok := strings.CutPrefix(suffix, p.annotation); ok && rest != "" {
				if p.annotation == "aws-" && !slices.Contains(awsAnnotations, suffix) {
					o.problem(annotationField(k), v, "not an annotation Route 53 reads (known: "+strings.Join(awsAnnotations, ", ")+")")
					break
				}
				if p.annotation == "cloudflare-" && !slices.Contains(cloudflareAnnotations, suffix) {
					o.problem(annotationField(k), v, "not an annotation Cloudflare reads (known: "+strings.Join(cloudflareAnnotations, ", ")+")")
					break
				}
				if why := o.reader.properties.unread(p.property + rest); why != "" {
					o.problem(annotationField(k), v, why)
					break
				}
				ps = append(ps, endpoint.ProviderSpecificProperty{Name: p.property + rest, Value: v})
				break
			}
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// splitList splits a comma-separated annotation value, dropping spaces and empty entries.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
