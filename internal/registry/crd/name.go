package crd

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// maxObjectName is the longest Kubernetes object name (an RFC 1123 subdomain).
const maxObjectName = 253

// objectName is the name of the DNSRecord that holds the ownership of a record set, as external-dns
// v0.23 derives it: readable (the DNS name with every run of other characters than [a-z0-9] turned
// into one "-") and unique (a hash of the full identity, so set identifiers and names that read the same
// after the replacement still get their own object). Case and the final dot do not matter.
func objectName(key endpoint.Key) string {
	name := strings.TrimSuffix(strings.ToLower(key.DNSName), ".")
	sum := sha256.Sum256([]byte(name + "/" + strings.ToUpper(key.RecordType) + "/" + key.SetIdentifier))
	suffix := "-" + hex.EncodeToString(sum[:4])

	base := readable(name)
	if limit := maxObjectName - len(suffix); len(base) > limit {
		base = strings.Trim(base[:limit], "-")
	}
	if base == "" {
		base = "record"
	}
	return base + suffix
}

// readable keeps [a-z0-9] of a lower-cased name, replaces each run of anything else with one "-", and
// trims "-" from both ends.
func readable(name string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteByte(c)
			continue
		}
		dash = true
	}
	return b.String()
}
