package cloudflare

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// Provider-specific properties, named as external-dns v0.23 names them. Sources copy each
// cloudflare-<x> annotation to cloudflare/<x>.
const (
	propPrefix         = "cloudflare/"
	propProxied        = "cloudflare/proxied"
	propComment        = "cloudflare/record-comment"
	propTags           = "cloudflare/tags"
	propRegionKey      = "cloudflare/region-key"
	propCustomHostname = "cloudflare/custom-hostname"
)

// autoTTL is Cloudflare's "automatic" TTL, written for a record without one and for every proxied
// record.
const autoTTL = 1

// legacyName maps the names external-dns before v0.23 gave these properties (the full annotation key,
// "external-dns.alpha.kubernetes.io/cloudflare-proxied", under any prefix, or "cloudflare-proxied")
// to the canonical ones, as v0.23 rewrites them in DNSEndpoint providerSpecific.
func legacyName(name string) (string, bool) {
	base := name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		base = name[i+1:]
	}
	rest, ok := strings.CutPrefix(base, "cloudflare-")
	if !ok {
		return "", false
	}
	canon := propPrefix + rest
	if !slices.Contains([]string{propProxied, propComment, propTags, propRegionKey, propCustomHostname}, canon) {
		return "", false
	}
	return canon, true
}

// attrs are the per-record settings a record set asks for.
type attrs struct {
	proxied bool
	comment string
	tags    []string
}

// attrsOf reads the properties of an adjusted endpoint. Errors name the annotation and the value.
func attrsOf(e *endpoint.Endpoint) (attrs, error) {
	var a attrs
	if v, ok := e.GetProviderSpecific(propProxied); ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return a, fmt.Errorf("cloudflare-proxied %q is not true or false", v)
		}
		a.proxied = b && slices.Contains(proxiableTypes, e.RecordType)
	}
	a.comment, _ = e.GetProviderSpecific(propComment)
	if v, ok := e.GetProviderSpecific(propTags); ok {
		a.tags = parseTags(v)
	}
	return a, nil
}

// parseTags splits a cloudflare-tags value ("team:web, env:prod") into its tags, sorted.
func parseTags(v string) []string {
	var out []string
	for _, t := range strings.Split(v, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}
