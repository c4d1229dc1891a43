package rfc2136

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/miekg/dns"

	"github.com/zonekeeper/zonekeeper/internal/endpoint"
)

// supportedTypes are the record types the provider reads and writes.
var supportedTypes = []string{
	endpoint.RecordTypeA, endpoint.RecordTypeAAAA, endpoint.RecordTypeCNAME, endpoint.RecordTypeTXT,
	endpoint.RecordTypeNS, endpoint.RecordTypeMX, endpoint.RecordTypeSRV, endpoint.RecordTypePTR,
	endpoint.RecordTypeDNAME, endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA,
}

func supported(recordType string) bool {
	for _, t := range supportedTypes {
		if t == recordType {
			return true
		}
	}
	return false
}

// buildRRs turns an endpoint into the records to add, all with the given TTL. Each bad target is an
// error naming it.
func buildRRs(ep *endpoint.Endpoint, fqdn string, ttl uint32) ([]dns.RR, error) {
	if len(ep.Targets) == 0 {
		return nil, fmt.Errorf("%s %s has no targets", ep.DNSName, ep.RecordType)
	}
	hdr := func(t uint16) dns.RR_Header {
		return dns.RR_Header{Name: fqdn, Rrtype: t, Class: dns.ClassINET, Ttl: ttl}
	}
	rrs := make([]dns.RR, 0, len(ep.Targets))
	for _, target := range ep.Targets {
		var rr dns.RR
		switch ep.RecordType {
		case endpoint.RecordTypeA:
			a, err := netip.ParseAddr(target)
			if err != nil || !a.Unmap().Is4() {
				return nil, fmt.Errorf("target %q of %s A is not an IPv4 address", target, ep.DNSName)
			}
			rr = &dns.A{Hdr: hdr(dns.TypeA), A: a.Unmap().AsSlice()}
		case endpoint.RecordTypeAAAA:
			a, err := netip.ParseAddr(target)
			if err != nil || !a.Is6() || a.Is4In6() {
				return nil, fmt.Errorf("target %q of %s AAAA is not an IPv6 address", target, ep.DNSName)
			}
			rr = &dns.AAAA{Hdr: hdr(dns.TypeAAAA), AAAA: a.AsSlice()}
		case endpoint.RecordTypeCNAME, endpoint.RecordTypeNS, endpoint.RecordTypePTR, endpoint.RecordTypeDNAME:
			host, err := hostTarget(ep, target)
			if err != nil {
				return nil, err
			}
			switch ep.RecordType {
			case endpoint.RecordTypeCNAME:
				rr = &dns.CNAME{Hdr: hdr(dns.TypeCNAME), Target: host}
			case endpoint.RecordTypeNS:
				rr = &dns.NS{Hdr: hdr(dns.TypeNS), Ns: host}
			case endpoint.RecordTypeDNAME:
				rr = &dns.DNAME{Hdr: hdr(dns.TypeDNAME), Target: host}
			default:
				rr = &dns.PTR{Hdr: hdr(dns.TypePTR), Ptr: host}
			}
		case endpoint.RecordTypeTXT:
			rr = &dns.TXT{Hdr: hdr(dns.TypeTXT), Txt: txtStrings(target)}
		case endpoint.RecordTypeMX, endpoint.RecordTypeSRV:
			// "10 mail.example.com" and "0 50 443 svc.example.com": zone-file syntax with absolute names.
			parsed, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", fqdn, ttl, ep.RecordType, absoluteLast(target)))
			if err != nil || parsed == nil || strings.ContainsAny(target, ";()\n") {
				return nil, fmt.Errorf("target %q of %s %s is not valid %s data", target, ep.DNSName, ep.RecordType, ep.RecordType)
			}
			rr = parsed
		case endpoint.RecordTypeNAPTR, endpoint.RecordTypeTLSA, endpoint.RecordTypeCAA:
			// Zone-file data, checked field by field first (NAPTR's replacement is already absolute).
			data, err := endpoint.ValidateTarget(ep.RecordType, target)
			if err != nil {
				return nil, fmt.Errorf("target %q of %s %s: %v", target, ep.DNSName, ep.RecordType, err)
			}
			parsed, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", fqdn, ttl, ep.RecordType, data))
			if err != nil || parsed == nil || strings.Contains(data, "\n") {
				return nil, fmt.Errorf("target %q of %s %s is not valid %s data", target, ep.DNSName, ep.RecordType, ep.RecordType)
			}
			rr = parsed
		default:
			return nil, fmt.Errorf("record type %s is not supported by the rfc2136 provider (%s)", ep.RecordType, strings.Join(supportedTypes, ", "))
		}
		rrs = append(rrs, rr)
	}
	return rrs, nil
}

func hostTarget(ep *endpoint.Endpoint, target string) (string, error) {
	t := strings.TrimSpace(target)
	if _, ok := dns.IsDomainName(t); !ok || t == "" || strings.ContainsAny(t, " \t;\"") {
		return "", fmt.Errorf("target %q of %s %s is not a host name", target, ep.DNSName, ep.RecordType)
	}
	return dns.Fqdn(t), nil
}

// absoluteLast makes the last field (a host name) of MX/SRV data absolute.
func absoluteLast(target string) string {
	fields := strings.Fields(target)
	if len(fields) == 0 {
		return target
	}
	fields[len(fields)-1] = dns.Fqdn(fields[len(fields)-1])
	return strings.Join(fields, " ")
}

// rrTarget is the endpoint target of a record read from the server, and its type; ok is false for a
// type the provider does not manage.
func rrTarget(rr dns.RR) (recordType, target string, ok bool) {
	switch v := rr.(type) {
	case *dns.A:
		return endpoint.RecordTypeA, v.A.String(), true
	case *dns.AAAA:
		return endpoint.RecordTypeAAAA, v.AAAA.String(), true
	case *dns.CNAME:
		return endpoint.RecordTypeCNAME, trimDot(v.Target), true
	case *dns.NS:
		return endpoint.RecordTypeNS, trimDot(v.Ns), true
	case *dns.PTR:
		return endpoint.RecordTypePTR, trimDot(v.Ptr), true
	case *dns.DNAME:
		return endpoint.RecordTypeDNAME, trimDot(v.Target), true
	case *dns.NAPTR, *dns.TLSA, *dns.CAA:
		// The zone-file data after the header, as external-dns's endpoints carry it.
		return dns.TypeToString[rr.Header().Rrtype], strings.TrimPrefix(rr.String(), rr.Header().String()), true
	case *dns.TXT:
		return endpoint.RecordTypeTXT, txtText(v.Txt), true
	case *dns.MX:
		return endpoint.RecordTypeMX, fmt.Sprintf("%d %s", v.Preference, trimDot(v.Mx)), true
	case *dns.SRV:
		return endpoint.RecordTypeSRV, fmt.Sprintf("%d %d %d %s", v.Priority, v.Weight, v.Port, trimDot(v.Target)), true
	}
	return "", "", false
}

func trimDot(s string) string { return strings.TrimSuffix(s, ".") }
