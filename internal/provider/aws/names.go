package aws

import (
	"strings"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// normName is the form names are compared in: lower case, no trailing dot, Route 53's \ooo octal
// escapes decoded (Route 53 returns "*" as "\052").
func normName(s string) string {
	s = strings.TrimSuffix(s, ".")
	if strings.IndexByte(s, '\\') >= 0 {
		s = unescapeOctal(s)
	}
	return strings.ToLower(s)
}

// unescapeOctal decodes \ooo and \X escapes; anything malformed is kept as it is.
func unescapeOctal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			n := int(s[i+1]-'0')*64 + int(s[i+2]-'0')*8 + int(s[i+3]-'0')
			if n < 256 {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// inZone reports whether name lies at or below zone (both normalised), on a label boundary.
func inZone(name, zone string) bool { return endpoint.InDomain(name, zone) }

// fqdn is the name as sent to Route 53.
func fqdn(name string) string { return strings.TrimSuffix(name, ".") + "." }

// bareZoneID drops the /hostedzone/ prefix.
func bareZoneID(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}
