package endpoint

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// Limits from RFC 1035.
const (
	MaxLabelLength = 63
	MaxNameLength  = 253
	// MaxTTL is the largest TTL the annotations accept (2^31-1, RFC 2181).
	MaxTTL = 1<<31 - 1
)

// NormalizeDNSName puts a hostname into canonical form: lower case, no trailing dot, and IDNA (punycode)
// for non-ASCII labels. It checks label and name lengths and characters. A leading "*" label is allowed.
func NormalizeDNSName(name string) (string, error) {
	n := strings.TrimSpace(name)
	n = strings.TrimSuffix(n, ".")
	if n == "" {
		return "", fmt.Errorf("empty name")
	}
	if !IsASCII(n) {
		ascii, err := idnaProfile.ToASCII(n)
		if err != nil {
			return "", fmt.Errorf("not a valid internationalised name: %v", err)
		}
		n = ascii
	}
	n = strings.ToLower(n)
	if len(n) > MaxNameLength {
		return "", fmt.Errorf("name is %d characters long, the limit is %d", len(n), MaxNameLength)
	}
	labels := strings.Split(n, ".")
	for i, l := range labels {
		if err := checkLabel(l, i == 0); err != nil {
			return "", err
		}
	}
	return n, nil
}

// idnaProfile maps and validates like a lookup (UTS 46) without the strict STD3 rules, so that
// underscores in service labels (_http._tcp) keep working.
var idnaProfile = idna.New(idna.MapForLookup(), idna.StrictDomainName(false), idna.Transitional(false))

func checkLabel(l string, first bool) error {
	switch {
	case l == "":
		return fmt.Errorf("empty label")
	case len(l) > MaxLabelLength:
		return fmt.Errorf("label %q is %d characters long, the limit is %d", l, len(l), MaxLabelLength)
	case l == "*" && first:
		return nil
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return fmt.Errorf("label %q contains %q, only letters, digits, '-' and '_' are allowed", l, c)
		}
	}
	if l[0] == '-' || l[len(l)-1] == '-' {
		return fmt.Errorf("label %q starts or ends with '-'", l)
	}
	return nil
}

// IsASCII reports whether s has no byte above 0x7f: a DNS name that needs no IDNA conversion.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// ValidateTarget checks a target of a record set of the given type and returns it normalised.
func ValidateTarget(recordType, target string) (string, error) {
	t := strings.TrimSpace(target)
	switch recordType {
	case RecordTypeA:
		a, err := netip.ParseAddr(t)
		if err != nil || !a.Unmap().Is4() {
			return "", fmt.Errorf("not an IPv4 address")
		}
		return a.Unmap().String(), nil
	case RecordTypeAAAA:
		a, err := netip.ParseAddr(t)
		if err != nil || !a.Is6() || a.Is4In6() {
			return "", fmt.Errorf("not an IPv6 address")
		}
		return a.String(), nil
	case RecordTypeCNAME, RecordTypeNS, RecordTypePTR, RecordTypeDNAME:
		if _, err := netip.ParseAddr(t); err == nil {
			return "", fmt.Errorf("an address is not a valid %s target", recordType)
		}
		n, err := NormalizeDNSName(t)
		if err != nil {
			return "", fmt.Errorf("neither an IP address nor a valid hostname: %v", err)
		}
		if strings.HasPrefix(n, "*") {
			return "", fmt.Errorf("a wildcard is not a valid %s target", recordType)
		}
		return n, nil
	case RecordTypeTXT:
		if t == "" {
			return "", fmt.Errorf("empty TXT value")
		}
		return target, nil
	}
	return checkRData(recordType, target)
}

// ClassifyTarget validates a target whose type is not yet known (a `target` annotation value, a status
// hostname) and returns it normalised with its suitable record type.
func ClassifyTarget(target string) (normalized, recordType string, err error) {
	t := strings.TrimSpace(target)
	rt := SuitableType(t)
	n, err := ValidateTarget(rt, t)
	if err != nil {
		return "", "", fmt.Errorf("neither an IP address nor a valid hostname")
	}
	return n, rt, nil
}

// Validate checks a whole endpoint (name, targets, TTL) and normalises it in place. It returns the
// first failure as a FieldError naming the endpoint field.
func (e *Endpoint) Validate() *FieldError {
	n, err := NormalizeDNSName(e.DNSName)
	if err != nil {
		return &FieldError{Field: "dnsName", Value: e.DNSName, Reason: err.Error()}
	}
	e.DNSName = n
	if e.RecordType == RecordTypePTR && !IsReverseName(n) {
		return &FieldError{Field: "dnsName", Value: e.DNSName, Reason: "a PTR record belongs below in-addr.arpa or ip6.arpa"}
	}
	if len(e.Targets) == 0 {
		return &FieldError{Field: "targets", Value: "", Reason: "no targets"}
	}
	for i, t := range e.Targets {
		v, err := ValidateTarget(e.RecordType, t)
		if err != nil {
			return &FieldError{Field: fmt.Sprintf("targets[%d]", i), Value: t, Reason: err.Error()}
		}
		e.Targets[i] = v
	}
	if e.RecordTTL < 0 || e.RecordTTL > MaxTTL {
		return &FieldError{Field: "recordTTL", Value: fmt.Sprint(int64(e.RecordTTL)), Reason: fmt.Sprintf("must be between 1 and %d", MaxTTL)}
	}
	return nil
}

// InDomain reports whether name is domain or lies below it, on a label boundary: "www.example.com" is
// in "example.com", "www.badexample.com" is not. Both must be in the same form (case, trailing dot).
// It allocates nothing, since the DNS server calls it for every query.
func InDomain(name, domain string) bool {
	if len(name) == len(domain) {
		return name == domain
	}
	return len(name) > len(domain) && name[len(name)-len(domain)-1] == '.' && strings.HasSuffix(name, domain)
}
