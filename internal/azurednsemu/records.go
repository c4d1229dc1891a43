package azurednsemu

import (
	"fmt"
	"net/netip"
	"strings"
)

// recordSet is one stored record set. Only the list of its own type is
// used; the others stay nil.
type recordSet struct {
	name     string // relative name as created ("@" is the apex)
	typ      string // upper-case record type
	ttl      int64
	metadata map[string]string
	etag     string
	auto     bool // isAutoRegistered (private zones, seed only)
	a, aaaa  []string
	ns, ptr  []string
	cname    *string
	mx       []mxRecord
	srv      []srvRecord
	txt      [][]string
	caa      []caaRecord
	soa      *soaRecord
}

type mxRecord struct {
	Preference int32
	Exchange   string
}

type srvRecord struct {
	Priority, Weight, Port int32
	Target                 string
}

type caaRecord struct {
	Flags      int32
	Tag, Value string
}

type soaRecord struct {
	Host, Email                                string
	Serial, Refresh, Retry, Expire, MinimumTTL int64
}

func (r *recordSet) key() setKey { return setKey{name: strings.ToLower(r.name), typ: r.typ} }

// count is the number of records in the set.
func (r *recordSet) count() int {
	n := len(r.a) + len(r.aaaa) + len(r.ns) + len(r.ptr) + len(r.mx) + len(r.srv) + len(r.txt) + len(r.caa)
	if r.cname != nil {
		n++
	}
	if r.soa != nil {
		n++
	}
	return n
}

// recordTypes are the record types of each API's RecordType enum.
var recordTypes = map[string][]string{
	APIDNS:        {"A", "AAAA", "CAA", "CNAME", "MX", "NS", "PTR", "SOA", "SRV", "TXT"},
	APIPrivateDNS: {"A", "AAAA", "CNAME", "MX", "PTR", "SOA", "SRV", "TXT"},
}

// canonicalType returns the enum spelling of a record type segment (ARM
// matches it case-insensitively).
func canonicalType(api, t string) (string, bool) {
	for _, v := range recordTypes[api] {
		if strings.EqualFold(v, t) {
			return v, true
		}
	}
	return "", false
}

// validName checks a relative record set name: "@" or dot-separated labels
// of letters, digits, hyphens, underscores and "*" (a leading wildcard).
func validName(name string) error {
	if name == "@" {
		return nil
	}
	if name == "" || len(name) > 253 {
		return fmt.Errorf("the record set name must have 1 to 253 characters")
	}
	for i, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("label %d of %q is empty or longer than 63 characters", i+1, name)
		}
		if label == "*" && i == 0 {
			continue
		}
		for _, c := range label {
			ok := c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
			if !ok {
				return fmt.Errorf("label %q of %q has the character %q", label, name, c)
			}
		}
	}
	return nil
}

// validate checks the records of a set against its type, naming the field.
func (r *recordSet) validate(api string) error {
	field := func(list string) string { return "properties." + wireName(api, list) }
	if r.ttl < 0 || r.ttl > 2147483647 {
		return fmt.Errorf("%s: %d is outside 0..2147483647", field("ttl"), r.ttl)
	}
	if r.count() > maxRecordsPerSet && r.typ != "SOA" {
		return fmt.Errorf("a record set may hold at most %d records, this one has %d", maxRecordsPerSet, r.count())
	}
	for i, v := range r.a {
		if ip, err := netip.ParseAddr(v); err != nil || !ip.Is4() {
			return fmt.Errorf("%s[%d].ipv4Address: %q is not an IPv4 address", field("a"), i, v)
		}
	}
	for i, v := range r.aaaa {
		if ip, err := netip.ParseAddr(v); err != nil || !ip.Is6() || ip.Is4In6() {
			return fmt.Errorf("%s[%d].ipv6Address: %q is not an IPv6 address", field("aaaa"), i, v)
		}
	}
	hosts := func(list string, sub string, vs []string) error {
		for i, v := range vs {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("%s[%d].%s: must not be empty", field(list), i, sub)
			}
		}
		return nil
	}
	if err := hosts("ns", "nsdname", r.ns); err != nil {
		return err
	}
	if err := hosts("ptr", "ptrdname", r.ptr); err != nil {
		return err
	}
	if r.cname != nil && strings.TrimSpace(*r.cname) == "" {
		return fmt.Errorf("%s.cname: must not be empty", field("cname"))
	}
	for i, m := range r.mx {
		if m.Preference < 0 || m.Preference > 65535 || strings.TrimSpace(m.Exchange) == "" {
			return fmt.Errorf("%s[%d]: want preference 0..65535 and an exchange, got %d %q", field("mx"), i, m.Preference, m.Exchange)
		}
	}
	for i, s := range r.srv {
		if s.Priority < 0 || s.Priority > 65535 || s.Weight < 0 || s.Weight > 65535 || s.Port < 0 || s.Port > 65535 || strings.TrimSpace(s.Target) == "" {
			return fmt.Errorf("%s[%d]: want priority, weight and port 0..65535 and a target", field("srv"), i)
		}
	}
	for i, t := range r.txt {
		total := 0
		for _, v := range t {
			total += len(v)
		}
		if len(t) == 0 || total > 1024 {
			return fmt.Errorf("%s[%d].value: want 1 to 1024 characters in at least one string, got %d", field("txt"), i, total)
		}
	}
	for i, c := range r.caa {
		if c.Flags < 0 || c.Flags > 255 || c.Tag == "" {
			return fmt.Errorf("%s[%d]: want flags 0..255 and a tag", field("caa"), i)
		}
	}
	if r.typ == "CNAME" && r.name == "@" {
		return fmt.Errorf("a CNAME record set cannot be created at the zone apex")
	}
	return nil
}

// wireNames are the JSON property names of RecordSetProperties in each
// swagger file (the public one is upper-case, the private one camel-case).
var wireNames = map[string]map[string]string{
	APIDNS: {"ttl": "TTL", "a": "ARecords", "aaaa": "AAAARecords", "mx": "MXRecords", "ns": "NSRecords", "ptr": "PTRRecords",
		"srv": "SRVRecords", "txt": "TXTRecords", "cname": "CNAMERecord", "soa": "SOARecord", "caa": "caaRecords", "minimumTTL": "minimumTTL"},
	APIPrivateDNS: {"ttl": "ttl", "a": "aRecords", "aaaa": "aaaaRecords", "mx": "mxRecords", "ptr": "ptrRecords",
		"srv": "srvRecords", "txt": "txtRecords", "cname": "cnameRecord", "soa": "soaRecord", "minimumTTL": "minimumTtl"},
}

func wireName(api, list string) string {
	if n, ok := wireNames[api][list]; ok {
		return n
	}
	return list
}

// typeList is the record list each type uses.
var typeList = map[string]string{"A": "a", "AAAA": "aaaa", "MX": "mx", "NS": "ns", "PTR": "ptr", "SRV": "srv", "TXT": "txt", "CNAME": "cname", "SOA": "soa", "CAA": "caa"}
