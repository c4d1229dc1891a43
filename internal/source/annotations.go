package source

import (
	"fmt"
	"sort"
	"strings"
)

// The two annotation prefixes external-dns has used. zonekeeper reads both by default; GA wins.
const (
	PrefixGA    = "external-dns.kubernetes.io/"
	PrefixAlpha = "external-dns.alpha.kubernetes.io/"
)

// Annotation keys, without prefix.
const (
	keyHostname              = "hostname"
	keyInternalHostname      = "internal-hostname"
	keyTarget                = "target"
	keyTTL                   = "ttl"
	keyController            = "controller"
	keyAccess                = "access"
	keyEndpointsType         = "endpoints-type"
	keyIngressHostnameSource = "ingress-hostname-source"
	keyGatewayHostnameSource = "gateway-hostname-source"
	keySetIdentifier         = "set-identifier"
	keyAlias                 = "alias"
	// keyRecordType ("ptr") asks for PTR records of the object's A and AAAA records (ptr.go).
	keyRecordType = "record-type"
)

var knownKeys = []string{
	keyHostname, keyInternalHostname, keyTarget, keyTTL, keyController, keyAccess, keyEndpointsType,
	keyIngressHostnameSource, keyGatewayHostnameSource, keySetIdentifier, keyAlias, keyRecordType,
}

// annotationReader finds zonekeeper annotations under the configured prefixes.
type annotationReader struct {
	// prefixes in priority order: the first one holding a key wins.
	prefixes []string
	// fullKeys maps a known key to its full annotation keys in priority order, precomputed so that
	// lookups do not build strings.
	fullKeys map[string][]string
	// properties are Config.ProviderProperties: which provider-specific properties are applied.
	properties *PropertyReaders
}

func newAnnotationReader(customPrefix string) (annotationReader, error) {
	prefixes := []string{PrefixGA, PrefixAlpha}
	if customPrefix != "" {
		if !strings.HasSuffix(customPrefix, "/") {
			return annotationReader{}, fmt.Errorf("--annotation-prefix %q must end with '/'", customPrefix)
		}
		prefixes = []string{customPrefix}
	}
	r := annotationReader{prefixes: prefixes, fullKeys: make(map[string][]string, len(knownKeys))}
	for _, k := range knownKeys {
		for _, p := range prefixes {
			r.fullKeys[k] = append(r.fullKeys[k], p+k)
		}
	}
	return r, nil
}

// lookup returns the value of a known key and the full annotation key it was found under.
func (r annotationReader) lookup(ann map[string]string, key string) (value, fullKey string, ok bool) {
	if len(ann) == 0 {
		return "", "", false
	}
	for _, k := range r.fullKeys[key] {
		if v, ok := ann[k]; ok {
			return v, k, true
		}
	}
	return "", "", false
}

// splitKey splits a full annotation key into its suffix when it carries one of the prefixes, and
// reports whether a higher-priority prefix also sets the same suffix (then this one is shadowed).
func (r annotationReader) splitKey(ann map[string]string, fullKey string) (suffix string, ok bool) {
	for i, p := range r.prefixes {
		if !strings.HasPrefix(fullKey, p) {
			continue
		}
		suffix = fullKey[len(p):]
		for _, higher := range r.prefixes[:i] {
			if _, shadowed := ann[higher+suffix]; shadowed {
				return "", false
			}
		}
		return suffix, true
	}
	return "", false
}

// annotationField names an annotation in a Problem.
func annotationField(fullKey string) string {
	return "metadata.annotations[" + fullKey + "]"
}

// reportShadowed records a Problem for every annotation that a higher-priority prefix also sets with
// another value: external-dns.kubernetes.io/ wins over external-dns.alpha.kubernetes.io/, and the
// object's owner is told (an Event) that the other value is not read. The same value twice is fine.
func (o *objectInput) reportShadowed() {
	prefixes := o.reader.prefixes
	if len(prefixes) < 2 || len(o.annotations) < 2 {
		return
	}
	var keys []string
	for k := range o.annotations {
		for _, p := range prefixes[1:] {
			if strings.HasPrefix(k, p) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for i, p := range prefixes[1:] {
			if !strings.HasPrefix(k, p) {
				continue
			}
			suffix := k[len(p):]
			for _, higher := range prefixes[:i+1] {
				if v, set := o.annotations[higher+suffix]; set && v != o.annotations[k] {
					o.problem(annotationField(k), o.annotations[k],
						fmt.Sprintf("not read: %s%s is also set (to %q) and wins", higher, suffix, v))
					break
				}
			}
		}
	}
}
