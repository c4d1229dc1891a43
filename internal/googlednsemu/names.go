package googlednsemu

import "strings"

// canonicalName lower-cases a DNS name and adds the trailing dot; ok is
// false for names that are not DNS names (empty labels, labels over 63
// octets, names over 253 octets, or characters other than letters, digits,
// '-', '_' and a leading '*' label).
func canonicalName(v string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(v))
	if n == "" || n == "." {
		return "", false
	}
	if !strings.HasSuffix(n, ".") {
		n += "."
	}
	if len(n) > 254 {
		return "", false
	}
	labels := strings.Split(strings.TrimSuffix(n, "."), ".")
	for i, l := range labels {
		if l == "" || len(l) > 63 {
			return "", false
		}
		if l == "*" && i == 0 {
			continue
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return n, true
}

// inZone reports whether a canonical name is the zone's apex or below it.
func inZone(name, dnsName string) bool {
	return name == dnsName || strings.HasSuffix(name, "."+dnsName)
}
