package cloudflare

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// AdjustEndpoints implements provider.EndpointAdjuster: it returns the desired endpoints as Records
// will list them once written, so the plan compares like with like (as external-dns's
// AdjustEndpoints does):
//
//   - legacy property names (external-dns.alpha.kubernetes.io/cloudflare-proxied, any prefix) take
//     their v0.23 names (cloudflare/proxied), and other providers' properties are dropped;
//   - an ownership TXT (one the registry labels with the record it guards) loses cloudflare/proxied
//     and cloudflare/region-key, which it copies from its record but Cloudflare keeps on no TXT: it
//     lists unproxied and without a region key, so the registry, comparing in this form, does not
//     rewrite it with the same value after a listing. A TXT an object declares keeps them, to be
//     refused by Capabilities;
//   - cloudflare/proxied is always set: the annotation, else --cloudflare-proxied, and "false" for a
//     type Cloudflare cannot proxy unless the object asked for it (then Capabilities refuses it, a
//     problem on the object rather than a record silently published otherwise);
//   - a proxied record has no TTL of its own (Cloudflare keeps it "automatic");
//   - cloudflare/record-comment defaults to --cloudflare-record-comment;
//   - cloudflare/tags are trimmed and sorted, and dropped when empty;
//   - with Regional Services on, an A, AAAA or CNAME without cloudflare/region-key gets
//     --cloudflare-region-key's ("" for none);
//   - with custom hostnames on, cloudflare/custom-hostname is sorted, and dropped from types other
//     than A and CNAME (whose name's A or CNAME record carries the custom hostnames).
//
// A value that cannot be written (cloudflare-proxied: maybe) is kept; ApplyChanges rejects it with a
// message naming the annotation. The argument is not modified.
func (p *Provider) AdjustEndpoints(_ context.Context, desired []*endpoint.Endpoint) ([]*endpoint.Endpoint, error) {
	out := make([]*endpoint.Endpoint, 0, len(desired))
	for _, e := range desired {
		c := e.DeepCopy()
		c.ProviderSpecific = ownProperties(c.ProviderSpecific)
		if c.RecordType == endpoint.RecordTypeTXT && c.Labels[endpoint.OwnedRecordLabelKey] != "" {
			c.DeleteProviderSpecific(propProxied)
			c.DeleteProviderSpecific(propRegionKey)
		}
		v, explicit := c.GetProviderSpecific(propProxied)
		v = strings.TrimSpace(v)
		if !explicit {
			v = strconv.FormatBool(p.cfg.Proxied)
		}
		proxied, err := strconv.ParseBool(v)
		switch {
		case err != nil:
			c.SetProviderSpecific(propProxied, v)
		case !slices.Contains(proxiableTypes, c.RecordType) && (!explicit || !proxied):
			c.SetProviderSpecific(propProxied, "false")
		default:
			c.SetProviderSpecific(propProxied, strconv.FormatBool(proxied))
			if proxied {
				c.RecordTTL = 0
			}
		}
		if _, ok := c.GetProviderSpecific(propComment); !ok && p.cfg.Comment != "" {
			c.SetProviderSpecific(propComment, p.cfg.Comment)
		}
		if _, ok := c.GetProviderSpecific(propRegionKey); !ok && p.regional() && slices.Contains(regionalTypes, c.RecordType) {
			c.SetProviderSpecific(propRegionKey, p.cfg.RegionKey)
		}
		if v, ok := c.GetProviderSpecific(propCustomHostname); ok && p.cfg.CustomHostnames {
			// Sorted, as Records lists them; only A and CNAME records have custom hostnames.
			if hs := customHostnamesOf(v); len(hs) > 0 && slices.Contains(customTypes, c.RecordType) {
				c.SetProviderSpecific(propCustomHostname, strings.Join(hs, ","))
			} else {
				c.DeleteProviderSpecific(propCustomHostname)
			}
		}
		if c.RecordType == endpoint.RecordTypeTLSA {
			// The digest is hex: compared in lower case, as Records lists it.
			for i, t := range c.Targets {
				c.Targets[i] = tlsaTarget(t)
			}
		}
		if v, ok := c.GetProviderSpecific(propTags); ok {
			if tags := parseTags(v); len(tags) > 0 {
				c.SetProviderSpecific(propTags, strings.Join(tags, ","))
			} else {
				c.DeleteProviderSpecific(propTags)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// ownProperties keeps the cloudflare/ properties, with legacy names made canonical; a canonical name
// wins over a legacy one.
func ownProperties(in endpoint.ProviderSpecific) endpoint.ProviderSpecific {
	var out endpoint.ProviderSpecific
	set := func(name, value string, override bool) {
		for i := range out {
			if out[i].Name == name {
				if override {
					out[i].Value = value
				}
				return
			}
		}
		out = append(out, endpoint.ProviderSpecificProperty{Name: name, Value: value})
	}
	for _, p := range in {
		if strings.HasPrefix(p.Name, propPrefix) {
			set(p.Name, p.Value, true)
		} else if canon, ok := legacyName(p.Name); ok {
			set(canon, p.Value, false)
		}
	}
	return out
}
