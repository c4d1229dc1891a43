package route53emu

import (
	"net/netip"
	"strconv"
	"strings"
)

// invalidRecord is AWS's wording for a value its RDATA parser rejects.
func invalidRecord(problem, text, value string) string {
	return "Invalid Resource Record: 'FATAL problem: " + problem + " (" + text + ") encountered with '" + value + "''"
}

// checkValue validates one value of a set of type t; "" means valid.
func checkValue(t, v string) string {
	switch t {
	case "A":
		a, err := netip.ParseAddr(v)
		if err != nil || !a.Is4() {
			return invalidRecord("ARRDATAIllegalIPv4Address", "Value is not a valid IPv4 address", v)
		}
	case "AAAA":
		a, err := netip.ParseAddr(v)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return invalidRecord("AAAARRDATAIllegalIPv6Address", "Value is not a valid IPv6 address", v)
		}
	case "TXT", "SPF":
		return checkCharacterStrings(v)
	case "CNAME", "NS", "PTR":
		return checkDomainValue(v, v)
	case "MX":
		f := strings.Fields(v)
		if len(f) != 2 || !isUint(f[0], 65535) {
			return invalidRecord("MXRRDATAIncorrectFormat", "Value must be 'priority domain-name'", v)
		}
		return checkDomainValue(f[1], v)
	case "SRV":
		f := strings.Fields(v)
		if len(f) != 4 || !isUint(f[0], 65535) || !isUint(f[1], 65535) || !isUint(f[2], 65535) {
			return invalidRecord("SRVRRDATAIncorrectFormat", "Value must be 'priority weight port domain-name'", v)
		}
		return checkDomainValue(f[3], v)
	case "CAA":
		f := strings.Fields(v)
		if len(f) < 3 || !isUint(f[0], 255) || !strings.HasPrefix(f[2], `"`) {
			return invalidRecord("CAARRDATAIncorrectFormat", `Value must be 'flags tag "value"'`, v)
		}
	case "SOA":
		f := strings.Fields(v)
		if len(f) != 7 {
			return invalidRecord("SOARRDATAIncorrectFormat", "Value must have seven fields", v)
		}
		for _, n := range f[2:] {
			if !isUint(n, 4294967295) {
				return invalidRecord("SOARRDATAIncorrectFormat", "Value must have seven fields", v)
			}
		}
	}
	return ""
}

func isUint(s string, max uint64) bool {
	n, err := strconv.ParseUint(s, 10, 64)
	return err == nil && n <= max
}

func checkDomainValue(name, whole string) string {
	if _, err := decodeName(name); err != nil {
		ne := err.(*nameError)
		return invalidRecord(ne.Reason, ne.Text, whole)
	}
	return ""
}

// checkCharacterStrings validates TXT/SPF values: one or more "…" strings
// separated by spaces, with \" \\ and \ooo escapes, each at most 255 bytes.
func checkCharacterStrings(v string) string {
	unquoted := invalidRecord("InvalidCharacterString", "Value should be enclosed in quotation marks", v)
	i, n := 0, 0
	for {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
		if i == len(v) {
			break
		}
		if v[i] != '"' {
			return unquoted
		}
		i++
		size, closed := 0, false
		for i < len(v) {
			c := v[i]
			if c == '"' {
				closed = true
				i++
				break
			}
			if c == '\\' && i+3 < len(v) && isOctal(v[i+1]) && isOctal(v[i+2]) && isOctal(v[i+3]) {
				i += 4
			} else if c == '\\' && i+1 < len(v) {
				i += 2
			} else {
				i++
			}
			size++
		}
		if !closed {
			return unquoted
		}
		if size > 255 {
			return invalidRecord("TXTRDATATooLong", "Value is too long", v)
		}
		n++
		if i < len(v) && v[i] != ' ' && v[i] != '\t' {
			return unquoted
		}
	}
	if n == 0 {
		return unquoted
	}
	return ""
}

// isDomainValued is true for types whose values are a single domain name,
// compared without case or trailing dot when matching a DELETE.
func isDomainValued(t string) bool { return t == "CNAME" || t == "NS" || t == "PTR" }

// valueKey is the form used to compare values for duplicates and DELETE.
func valueKey(t, v string) string {
	if isDomainValued(t) {
		return strings.TrimSuffix(strings.ToLower(v), ".")
	}
	return v
}
