package googlednsemu

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// supportedTypes are the record types Cloud DNS documents as supported.
var supportedTypes = map[string]bool{
	"A": true, "AAAA": true, "CAA": true, "CNAME": true, "DNSKEY": true, "DS": true, "HTTPS": true,
	"IPSECKEY": true, "MX": true, "NAPTR": true, "NS": true, "PTR": true, "SOA": true, "SPF": true,
	"SRV": true, "SSHFP": true, "SVCB": true, "TLSA": true, "TXT": true,
}

// Documented Cloud DNS limits.
const (
	maxRecordsPerRRSet = 100
	maxAdditions       = 1000
	maxDeletions       = 1000
	maxRrdataBytes     = 100000
	maxRRSetsPerZone   = 10000
)

// rrsetInput is a ResourceRecordSet in a change body. Fields the emulator
// does not emulate are declared so they can be refused by name.
type rrsetInput struct {
	Kind             string   `json:"kind"`
	Name             string   `json:"name"`
	Type             string   `json:"type"`
	TTL              *int64   `json:"ttl"`
	Rrdatas          []string `json:"rrdatas"`
	SignatureRrdatas []string `json:"signatureRrdatas"`
	RoutingPolicy    any      `json:"routingPolicy"`
}

// buildRRSet validates one addition or deletion (where names it, e.g.
// "entity.change.additions[0]") against the zone and returns it canonical.
func buildRRSet(z *zone, in rrsetInput, where string) (*rrset, *apiError) {
	invalid := func(field, v, why string) *apiError {
		msg := fmt.Sprintf("Invalid value for '%s.%s': '%s'", where, field, v)
		if why != "" {
			msg += " (" + why + ")"
		}
		return newErr(http.StatusBadRequest, "invalid", msg)
	}
	switch {
	case in.Kind != "" && in.Kind != "dns#resourceRecordSet":
		return nil, invalid("kind", in.Kind, "want dns#resourceRecordSet")
	case in.RoutingPolicy != nil:
		return nil, invalid("routingPolicy", "…", "routing policies are not emulated")
	case len(in.SignatureRrdatas) > 0:
		return nil, invalid("signatureRrdatas", strings.Join(in.SignatureRrdatas, " "), "DNSSEC signatures are not emulated")
	case in.Name == "":
		return nil, newErr(http.StatusBadRequest, "required", "Required field '"+where+".name' not specified")
	case !strings.HasSuffix(in.Name, "."):
		return nil, invalid("name", in.Name, "a fully qualified name ends with a dot")
	}
	name, ok := canonicalName(in.Name)
	if !ok {
		return nil, invalid("name", in.Name, "not a DNS name")
	}
	if !inZone(name, z.dnsName) {
		return nil, invalid("name", in.Name, "not within the zone's DNS name "+z.dnsName)
	}
	typ := strings.ToUpper(in.Type)
	if in.Type == "" {
		return nil, newErr(http.StatusBadRequest, "required", "Required field '"+where+".type' not specified")
	}
	if !supportedTypes[typ] {
		return nil, invalid("type", in.Type, "not a record type Cloud DNS supports")
	}
	if in.TTL == nil {
		return nil, newErr(http.StatusBadRequest, "required", "Required field '"+where+".ttl' not specified")
	}
	if *in.TTL < 0 || *in.TTL > 1<<31-1 {
		return nil, invalid("ttl", strconv.FormatInt(*in.TTL, 10), "")
	}
	if len(in.Rrdatas) == 0 {
		return nil, newErr(http.StatusBadRequest, "required", "Required field '"+where+".rrdata' not specified")
	}
	if len(in.Rrdatas) > maxRecordsPerRRSet {
		return nil, newErr(http.StatusBadRequest, "invalid", fmt.Sprintf("'%s' has %d rrdatas; a record set holds at most %d", where, len(in.Rrdatas), maxRecordsPerRRSet))
	}
	if typ == "CNAME" && len(in.Rrdatas) != 1 {
		return nil, invalid("rrdata", strings.Join(in.Rrdatas, " "), "a CNAME record set has exactly one rrdata")
	}
	if typ == "CNAME" && name == z.dnsName {
		return nil, invalid("name", in.Name, "a CNAME cannot be at the zone apex")
	}
	seen := map[string]bool{}
	for i, d := range in.Rrdatas {
		if seen[d] {
			return nil, invalid(fmt.Sprintf("rrdata[%d]", i), d, "duplicate rrdata")
		}
		seen[d] = true
		if why := checkRrdata(typ, d); why != "" {
			return nil, invalid(fmt.Sprintf("rrdata[%d]", i), d, why)
		}
	}
	return &rrset{name: name, typ: typ, ttl: *in.TTL, rrdatas: append([]string(nil), in.Rrdatas...)}, nil
}

// checkRrdata checks the presentation format of the common types; other
// types only need a non-empty value.
func checkRrdata(typ, d string) string {
	if strings.TrimSpace(d) == "" {
		return "empty rrdata"
	}
	f := strings.Fields(d)
	switch typ {
	case "A":
		if a, err := netip.ParseAddr(d); err != nil || !a.Is4() {
			return "not an IPv4 address"
		}
	case "AAAA":
		if a, err := netip.ParseAddr(d); err != nil || !a.Is6() || a.Is4In6() {
			return "not an IPv6 address"
		}
	case "CNAME", "NS", "PTR":
		return checkTarget(d)
	case "MX":
		if len(f) != 2 || !isUint16(f[0]) {
			return "want 'preference exchange.'"
		}
		return checkTarget(f[1])
	case "SRV":
		if len(f) != 4 || !isUint16(f[0]) || !isUint16(f[1]) || !isUint16(f[2]) {
			return "want 'priority weight port target.'"
		}
		return checkTarget(f[3])
	case "CAA":
		if len(f) < 3 || !isUint8(f[0]) {
			return "want 'flags tag value'"
		}
	}
	return ""
}

// checkTarget requires a fully qualified domain name ("." is allowed, for
// null MX and SRV).
func checkTarget(t string) string {
	if t == "." {
		return ""
	}
	if !strings.HasSuffix(t, ".") {
		return "a domain name in rrdata must be fully qualified (end with a dot)"
	}
	if _, ok := canonicalName(t); !ok {
		return "not a domain name"
	}
	return ""
}

func isUint16(s string) bool { n, err := strconv.ParseUint(s, 10, 16); return err == nil && n <= 65535 }
func isUint8(s string) bool  { _, err := strconv.ParseUint(s, 10, 8); return err == nil }
