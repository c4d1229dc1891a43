package builtin

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/dnstext"
	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// recordTypes are the types the provider writes.
var recordTypes = []string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
	endpoint.RecordTypeSRV, endpoint.RecordTypeMX, endpoint.RecordTypePTR,
	endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA,
	// Not DNAME: the server does not synthesise CNAMEs below one (RFC 6672), so it could not answer
	// as the record asks.
}

// toRRs turns a record set into DNS records, checking every target. The endpoint's name must already
// be canonical.
func toRRs(e *endpoint.Endpoint, fqdn string, ttl uint32) ([]dns.RR, error) {
	rrtype, ok := dns.StringToType[e.RecordType]
	if !ok || !slices.Contains(recordTypes, e.RecordType) {
		return nil, fmt.Errorf("recordType %q is not supported by the built-in server (%s)", e.RecordType, strings.Join(recordTypes, ", "))
	}
	if e.RecordType == endpoint.RecordTypeCNAME && len(e.Targets) > 1 {
		return nil, fmt.Errorf("a CNAME has exactly one target, %s has %d", e.DNSName, len(e.Targets))
	}
	hdr := dns.RR_Header{Name: fqdn, Rrtype: rrtype, Class: dns.ClassINET, Ttl: ttl}
	out := make([]dns.RR, 0, len(e.Targets))
	for i, t := range e.Targets {
		rr, err := toRR(hdr, e.RecordType, t)
		if err != nil {
			return nil, fmt.Errorf("targets[%d] %q: %v", i, t, err)
		}
		out = append(out, rr)
	}
	return out, nil
}

func toRR(hdr dns.RR_Header, recordType, target string) (dns.RR, error) {
	switch recordType {
	case endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA:
		data, err := endpoint.ValidateTarget(recordType, target)
		if err != nil {
			return nil, err
		}
		rr, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", hdr.Name, hdr.Ttl, recordType, data))
		if err != nil || rr == nil || strings.Contains(data, "\n") {
			return nil, fmt.Errorf("not valid %s data", recordType)
		}
		return rr, nil
	case endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypePTR:
		v, err := endpoint.ValidateTarget(recordType, target)
		if err != nil {
			return nil, err
		}
		switch recordType {
		case endpoint.RecordTypeA:
			return &dns.A{Hdr: hdr, A: net.IP(netip.MustParseAddr(v).AsSlice())}, nil
		case endpoint.RecordTypeAAAA:
			return &dns.AAAA{Hdr: hdr, AAAA: net.IP(netip.MustParseAddr(v).AsSlice())}, nil
		case endpoint.RecordTypeCNAME:
			return &dns.CNAME{Hdr: hdr, Target: dns.Fqdn(v)}, nil
		default:
			return &dns.PTR{Hdr: hdr, Ptr: dns.Fqdn(v)}, nil
		}
	case endpoint.RecordTypeTXT:
		if target == "" {
			return nil, fmt.Errorf("empty TXT value")
		}
		return &dns.TXT{Hdr: hdr, Txt: txtStrings(target)}, nil
	case endpoint.RecordTypeMX:
		f := strings.Fields(target)
		if len(f) != 2 {
			return nil, fmt.Errorf(`want "preference host"`)
		}
		pref, err := strconv.ParseUint(f[0], 10, 16)
		if err != nil {
			return nil, fmt.Errorf("preference %q is not a number from 0 to 65535", f[0])
		}
		host, err := hostTarget(f[1])
		if err != nil {
			return nil, err
		}
		return &dns.MX{Hdr: hdr, Preference: uint16(pref), Mx: host}, nil
	case endpoint.RecordTypeSRV:
		f := strings.Fields(target)
		if len(f) != 4 {
			return nil, fmt.Errorf(`want "priority weight port host"`)
		}
		var n [3]uint16
		for i, name := range []string{"priority", "weight", "port"} {
			v, err := strconv.ParseUint(f[i], 10, 16)
			if err != nil {
				return nil, fmt.Errorf("%s %q is not a number from 0 to 65535", name, f[i])
			}
			n[i] = uint16(v)
		}
		host, err := hostTarget(f[3])
		if err != nil {
			return nil, err
		}
		return &dns.SRV{Hdr: hdr, Priority: n[0], Weight: n[1], Port: n[2], Target: host}, nil
	}
	return nil, fmt.Errorf("record type %s is not supported by the built-in server", recordType)
}

// hostTarget checks the host name of an MX or SRV target ("." is allowed: "no service", RFC 2782).
func hostTarget(s string) (string, error) {
	if s == "." {
		return s, nil
	}
	n, err := endpoint.NormalizeDNSName(s)
	if err != nil {
		return "", fmt.Errorf("host %q: %v", s, err)
	}
	return dns.Fqdn(n), nil
}

// txtStrings turns a TXT target into character-strings by dnstext's zone-file rules, as BIND,
// PowerDNS and Route 53 store external-dns's values: the ownership value "\"heritage=…\"" is served as
// heritage=… (its quotes are delimiters), raw text as its own bytes in strings of at most 255 bytes.
// Each is escaped in the presentation form miekg/dns packs from (backslash and double quote). Records
// still returns the targets as written.
func txtStrings(v string) []string {
	var out []string
	for _, s := range dnstext.Strings(v) {
		out = append(out, escapeTXT(s))
	}
	return out
}

func escapeTXT(s string) string {
	if !strings.ContainsAny(s, `\"`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == '"' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
